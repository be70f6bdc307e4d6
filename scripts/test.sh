#!/usr/bin/env bash
# Quick start 2: install what is needed, build everything, run the whole test suite.
# Tests that read ../shared/corpus skip (saying so) where that folder is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh --test
scripts/build.sh
cd "${STEPDOCTOR_BUILD_DIR:-build}"
ctest --output-on-failure -j"$(nproc)" "$@"
