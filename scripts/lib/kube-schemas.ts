// Converts the Kubernetes OpenAPI spec (api/openapi-spec/swagger.json of the k8s.io/kubernetes
// module) and CustomResourceDefinitions (KEDA's, the Prometheus Operator's) into the JSON schemas
// kubeconform validates against, one file per kind and version, named as kubeconform's
// `{{ .ResourceKind }}{{ .KindSuffix }}.json` template names them: deployment-apps-v1.json,
// scaledobject-keda-v1alpha1.json, servicemonitor-monitoring-v1.json.
// Schemas are strict (an object that lists its properties admits no other: a misspelt field is an
// error, as kubectl's server-side field validation makes it), like kubeconform's `-strict` ones.
// Run by scripts/kube-schemas.sh:
//   node scripts/lib/kube-schemas.ts OUT_DIR SWAGGER_JSON [CRD_YAML...]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseAllDocuments } from 'yaml'

type Schema = { [key: string]: unknown }
type GroupVersionKind = { group: string; version: string; kind: string }

/** kubeconform's file name of a kind: lower-case kind, the group's first label, the version. */
export function schemaFileName({ group, version, kind }: GroupVersionKind): string {
  const groupLabel = group === '' ? '' : `-${group.split('.')[0]!.toLowerCase()}`
  return `${kind.toLowerCase()}${groupLabel}-${version.toLowerCase()}.json`
}

/**
 * One OpenAPI or CRD schema node made strict and plain JSON Schema (draft 4, kubeconform's
 * default): descriptions dropped, int-or-string and quantities as either type, nullable admitting
 * null, and objects with listed properties closed unless they preserve unknown fields.
 */
export function strictSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strictSchema)
  if (typeof node !== 'object' || node === null) return node
  const source = node as Schema
  const out: Schema = {}
  for (const [key, value] of Object.entries(source)) {
    if (key === 'description' || key.startsWith('x-kubernetes-')) continue
    // Property names are data, not schema keywords: copy the map, converting each property.
    out[key] =
      key === 'properties' || key === 'definitions' || key === 'patternProperties'
        ? Object.fromEntries(Object.entries(value as Schema).map(([k, v]) => [k, strictSchema(v)]))
        : strictSchema(value)
  }
  if (source['x-kubernetes-int-or-string'] === true || source.format === 'int-or-string') {
    delete out.type
    delete out.format
    out.anyOf = [{ type: 'integer' }, { type: 'string' }]
  }
  if (source.nullable === true) {
    delete out.nullable
    if (typeof out.type === 'string') out.type = [out.type, 'null']
  }
  const open = source['x-kubernetes-preserve-unknown-fields'] === true
  if (out.properties !== undefined && out.additionalProperties === undefined && !open) {
    out.additionalProperties = false
  }
  return out
}

/** The `#/definitions/...` names a schema refers to, transitively. */
function reachable(root: unknown, definitions: Record<string, unknown>): Set<string> {
  const seen = new Set<string>()
  const pending = [root]
  while (pending.length > 0) {
    const node = pending.pop()
    if (Array.isArray(node)) pending.push(...node)
    else if (typeof node === 'object' && node !== null) {
      for (const [key, value] of Object.entries(node)) {
        const name = key === '$ref' && typeof value === 'string' ? value.replace('#/definitions/', '') : ''
        if (name && !seen.has(name)) {
          seen.add(name)
          pending.push(definitions[name])
        } else pending.push(value)
      }
    }
  }
  return seen
}

/** One schema file per kind of the OpenAPI v2 spec, each carrying the definitions it refers to. */
export function schemasFromOpenApi(swagger: { definitions: Record<string, Schema> }): Map<string, unknown> {
  const files = new Map<string, unknown>()
  const { definitions } = swagger
  // Quantities are written as numbers as often as strings (memory: 1, cpu: 0.5).
  const quantity = 'io.k8s.apimachinery.pkg.api.resource.Quantity'
  const patched: Record<string, Schema> = {
    ...definitions,
    [quantity]: { anyOf: [{ type: 'string' }, { type: 'number' }] },
  }
  for (const definition of Object.values(patched)) {
    const kinds = (definition as Schema)['x-kubernetes-group-version-kind'] as GroupVersionKind[] | undefined
    if (!kinds) continue
    const used = reachable(definition, patched)
    const schema = strictSchema({
      ...definition,
      definitions: Object.fromEntries([...used].map((name) => [name, patched[name]])),
    })
    for (const gvk of kinds) files.set(schemaFileName(gvk), schema)
  }
  return files
}

/** One schema file per served version of a CustomResourceDefinition. */
export function schemasFromCrd(crd: {
  spec: {
    group: string
    names: { kind: string }
    versions: { name: string; schema?: { openAPIV3Schema?: unknown } }[]
  }
}): Map<string, unknown> {
  const files = new Map<string, unknown>()
  const { group, names, versions } = crd.spec
  for (const version of versions) {
    const schema = version.schema?.openAPIV3Schema
    if (!schema) throw new Error(`${names.kind} ${version.name}: the CRD has no openAPIV3Schema`)
    files.set(schemaFileName({ group, version: version.name, kind: names.kind }), strictSchema(schema))
  }
  return files
}

function main([outDir, swaggerFile, ...crdFiles]: string[]): void {
  if (!outDir || !swaggerFile) throw new Error('usage: kube-schemas.ts OUT_DIR SWAGGER_JSON [CRD_YAML...]')
  const files = schemasFromOpenApi(JSON.parse(readFileSync(swaggerFile, 'utf8')))
  for (const file of crdFiles) {
    for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
      const crd = doc.toJS()
      if (crd?.kind !== 'CustomResourceDefinition') throw new Error(`${file}: not a CustomResourceDefinition`)
      for (const [name, schema] of schemasFromCrd(crd)) files.set(name, schema)
    }
  }
  mkdirSync(outDir, { recursive: true })
  for (const [name, schema] of files) writeFileSync(join(outDir, name), JSON.stringify(schema))
  console.error(`kube-schemas: ${files.size} schemas in ${outDir}`)
}

if (import.meta.filename === process.argv[1]) main(process.argv.slice(2))
