#!/usr/bin/env bash
# Configures (once) and builds stepdoctor into build/. Extra arguments are ninja targets.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${STEPDOCTOR_BUILD_DIR:-build}"
if [[ ! -f "$BUILD_DIR/build.ninja" ]]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo ${STEPDOCTOR_CMAKE_ARGS:-} >/dev/null
fi
ninja -C "$BUILD_DIR" "$@"
