# go_build_cached NAME PACKAGE: builds a Go program of tools/NAME (a module in this repo) with
# -trimpath into a cache shared by every clone on the machine, and prints the binary's path.
# Sourced by scripts/otelcol-build.sh and scripts/jaeger-build.sh, not run.
#
# The cache key is a hash of the module's sources (go.mod, go.sum, *.go), the Go version and the
# build flags, so a clone with the same sources reuses a binary another clone built, and any change
# to them builds anew: ${TRACESCORE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tracescore}/NAME-<hash>/NAME.
# The Go module and build caches of a build live in a scratch folder next to it and are deleted
# afterwards (~1.4 GB for the Collector, ~2.9 GB for Jaeger; the binaries are 65 and 120 MB).
# Keeping the module cache would only spare the download (about a minute) when the sources change,
# which is rare; a binary in the cache spares the whole build.
# A build runs under a lock, so concurrent test runs wait for one build instead of starting two.
#
# Exit 3 when `go` is not installed (callers skip what needs the program, saying so).

GO_BUILD_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
GO_BUILD_FLAGS=(-trimpath)
TRACESCORE_CACHE_DIR=${TRACESCORE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tracescore}

go_build_log() { printf '%s: %s\n' "$GO_BUILD_NAME" "$*" >&2; }

# The hash of what the binary is built from.
go_build_key() {
  local dir=$1
  {
    (cd "$dir" && go env GOVERSION GOOS GOARCH)
    echo "${GO_BUILD_FLAGS[*]}"
    (cd "$dir" && find . -maxdepth 1 -type f \( -name 'go.mod' -o -name 'go.sum' -o -name '*.go' \) -print0 |
      sort -z | xargs -0 sha256sum)
  } | sha256sum | cut -c1-16
}

go_build_cached() {
  GO_BUILD_NAME=$1
  local package=$2
  local dir=$GO_BUILD_ROOT/tools/$GO_BUILD_NAME
  if ! command -v go >/dev/null; then
    go_build_log "the Go toolchain (go) is not installed; $GO_BUILD_NAME cannot be built"
    return 3
  fi
  mkdir -p "$TRACESCORE_CACHE_DIR"
  local key out bin
  key=$(go_build_key "$dir")
  out=$TRACESCORE_CACHE_DIR/$GO_BUILD_NAME-$key
  bin=$out/$GO_BUILD_NAME
  exec 7>"$TRACESCORE_CACHE_DIR/$GO_BUILD_NAME.lock"
  flock 7
  if [[ ! -x "$bin" ]]; then
    local scratch t0
    scratch=$(mktemp -d "$TRACESCORE_CACHE_DIR/.go-build-XXXXXX")
    t0=$(date +%s)
    go_build_log "building $package ($(cd "$dir" && go env GOVERSION), cold: several minutes on 2 cores; log: $scratch.log)"
    # -modcacherw: module files stay writable, so the scratch folder deletes without a chmod pass.
    if (cd "$dir" && GOMODCACHE=$scratch/mod GOCACHE=$scratch/cache GOFLAGS="${GOFLAGS:-} -mod=readonly -modcacherw" \
      go build "${GO_BUILD_FLAGS[@]}" -o "$scratch/$GO_BUILD_NAME" "$package") >"$scratch.log" 2>&1; then
      mkdir -p "$out"
      mv "$scratch/$GO_BUILD_NAME" "$bin"
      go_build_log "built in $(($(date +%s) - t0)) s: $bin"
    else
      go_build_log "go build failed; last lines of $scratch.log:"
      tail -n 30 "$scratch.log" >&2
    fi
    rm -rf "$scratch"
    [[ -x "$bin" ]] || { exec 7>&-; return 1; }
    rm -f "$scratch.log"
  fi
  exec 7>&-
  echo "$bin"
}
