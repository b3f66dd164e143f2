#!/usr/bin/env bash
# Commits only the given paths, under a lock, so parallel work in one checkout never mixes
# changes. Usage: scripts/commit.sh "message" path...
set -euo pipefail
cd "$(dirname "$0")/.."
msg=$1; shift
exec flock /tmp/tracescore-git.lock bash -c 'git add -- "$@" && git commit -q -m "$0" -- "$@" && git log --oneline -1' "$msg" "$@"
