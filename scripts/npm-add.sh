#!/usr/bin/env bash
# Adds npm packages under a lock, so parallel work in one checkout never races on
# package.json / package-lock.json. Usage: scripts/npm-add.sh [-D] pkg@range ...
set -euo pipefail
cd "$(dirname "$0")/.."
exec flock /tmp/tracescore-npm.lock npm install --no-audit --no-fund "$@"
