#!/usr/bin/env bash
# Installs the Debian 12 packages stepdoctor needs, skipping those already installed.
#   scripts/deps.sh          build and run
#   scripts/deps.sh --test   also what the test suite needs (GoogleTest, Chromium for the HTML test,
#                            dpkg-dev and file for the Debian package test (CPack's shlibdeps),
#                            git so the build records its revision (--version test), and for the Python package's
#                            tests: venv, pip, setuptools and wheel to install it offline, PyTorch
#                            for the profiler handler; Slurm and munge for the private single-node
#                            cluster of tests/slurm/: under systemd installing them starts only
#                            the system munged (slurmd and slurmctld wait for /etc/slurm/slurm.conf),
#                            and the test runs daemons of its own, with their own key, socket,
#                            config and ports)
set -euo pipefail

BUILD_PKGS=(g++ cmake ninja-build pkg-config ccache
            libsimdjson-dev libfmt-dev libcli11-dev zlib1g-dev libdeflate-dev libprotobuf-dev protobuf-compiler)
TEST_PKGS=(libgtest-dev libgmock-dev libbenchmark-dev chromium dpkg-dev file git
           python3-venv python3-pip python3-setuptools python3-wheel python3-torch
           slurmctld slurmd slurm-client munge)

pkgs=("${BUILD_PKGS[@]}")
if [[ "${1:-}" == "--test" ]]; then pkgs+=("${TEST_PKGS[@]}"); fi

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]} == 0)); then exit 0; fi

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
