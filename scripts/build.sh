#!/usr/bin/env bash
# Configures and builds stepdoctor into build/ (or $STEPDOCTOR_BUILD_DIR).
#   scripts/build.sh [--no-tests] [NINJA_TARGET...]
# --no-tests configures without the test suite and benchmarks, so GoogleTest is not needed
# (the quick-start demo). Configuring again each time is cheap and keeps the options in step
# with what was asked; extra CMake options come from $STEPDOCTOR_CMAKE_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${STEPDOCTOR_BUILD_DIR:-build}"
TESTS=ON
if [[ "${1:-}" == "--no-tests" ]]; then TESTS=OFF; shift; fi
cmake --no-warn-unused-cli -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSTEPDOCTOR_BUILD_TESTS=$TESTS -DSTEPDOCTOR_BUILD_BENCH=$TESTS ${STEPDOCTOR_CMAKE_ARGS:-} >/dev/null
ninja -C "$BUILD_DIR" "$@"
