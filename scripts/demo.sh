#!/usr/bin/env bash
# Quick start 1: install what is needed, build, and diagnose the bundled example trace.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh --no-tests stepdoctor_cli >/dev/null
exec "${STEPDOCTOR_BUILD_DIR:-build}/stepdoctor" diagnose examples/dataloader_input_bound.pt.trace.json.gz "$@"
