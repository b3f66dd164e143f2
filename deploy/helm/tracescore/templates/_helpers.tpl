{{/* The chart's name, and the release's full name (63 characters at most, a DNS label). */}}
{{- define "tracescore.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "tracescore.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels every object carries; the selector labels pick the pods. */}}
{{- define "tracescore.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tracescore.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "tracescore.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "tracescore.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* The Secret the pods read their environment from: an existing one, or the chart's own (when it has values). */}}
{{- define "tracescore.secretName" -}}
{{- if .Values.secret.existingSecret -}}
{{- .Values.secret.existingSecret -}}
{{- else if .Values.secret.values -}}
{{- include "tracescore.fullname" . -}}
{{- end -}}
{{- end -}}

{{- define "tracescore.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "tracescore.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The path of the configuration module in the container, given to `tracescore run --config`. */}}
{{- define "tracescore.configPath" -}}
{{- printf "%s/%s" (trimSuffix "/" .Values.config.mountPath) .Values.config.fileName -}}
{{- end -}}
