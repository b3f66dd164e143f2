#!/usr/bin/env bash
# Makes sure `prometheus` and `promtool` are on the PATH, installing Debian's `prometheus` package
# with apt-get when they are not (the alert-rule tests and the Prometheus e2e test need them; CI
# starts on a clean machine). Only the package itself: --no-install-recommends keeps the node
# exporter out. The package's own service is not used: the tests start Prometheus themselves.
#
# Exit 0 when both are available, 3 when they are absent and cannot be installed here (no
# apt-get, or not root and no sudo), with a message saying so; any other code is a failed install.
set -euo pipefail

log() { printf 'prometheus: %s\n' "$*"; }

if command -v promtool >/dev/null && command -v prometheus >/dev/null; then exit 0; fi

if ! command -v apt-get >/dev/null; then
  log "promtool/prometheus not found and apt-get is not available: install Prometheus 2.x to run the alerting tests" >&2
  exit 3
fi
as_root=()
if [[ $EUID -ne 0 ]]; then
  if ! command -v sudo >/dev/null || ! sudo -n true 2>/dev/null; then
    log "promtool/prometheus not found and installing needs root (no password-less sudo): apt-get install prometheus" >&2
    exit 3
  fi
  as_root=(sudo -n)
fi

export DEBIAN_FRONTEND=noninteractive
apt_opts=(-o DPkg::Lock::Timeout=600 -y -q --no-install-recommends)
log "installing Debian's prometheus package (promtool, prometheus)"
log_file=$(mktemp)
# A clean machine may have no package lists yet: update once, then retry.
if ! "${as_root[@]}" apt-get "${apt_opts[@]}" install prometheus >"$log_file" 2>&1; then
  "${as_root[@]}" apt-get -o DPkg::Lock::Timeout=600 -q update >>"$log_file" 2>&1 || true
  if ! "${as_root[@]}" apt-get "${apt_opts[@]}" install prometheus >>"$log_file" 2>&1; then
    log "apt-get install prometheus failed; last lines:" >&2
    tail -n 20 "$log_file" >&2
    rm -f "$log_file"
    exit 1
  fi
fi
rm -f "$log_file"
log "installed: $(prometheus --version 2>&1 | head -n 1)"
