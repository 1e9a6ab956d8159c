#!/usr/bin/env bash
# Installs what Anvil needs from Debian's archive, only what is missing (see
# ../shared/docs/BUILDING.md). Idempotent and quiet when everything is present; needs root to install.
set -euo pipefail

PACKAGES=(
  bazel-bootstrap       # Bazel 4.2.3, WORKSPACE mode
  g++
  pkg-config
  libabsl-dev
  libprotobuf-dev
  protobuf-compiler
  libonnx-dev           # ONNX 1.12: protos, checker, parser, shape inference
  libonnx-testdata      # ONNX backend test suite: conformance and round-trip tests
  libhwy-dev
  libgtest-dev
  libgmock-dev
  libbenchmark-dev
  python3-onnx          # model generators and checks in testdata/
  python3-numpy
  python3-dev           # Python.h for the anvil extension (python/)
  python3-pybind11      # the extension's bindings (pulls pybind11-dev)
  python3-venv          # the wheel is tested installed in a venv
  python3-pytest        # python/tests
  clang-15              # fuzzing: --config=fuzz (scripts/fuzz.sh)
  libfuzzer-15-dev
  nginx-light           # a loopback HTTP remote cache (scripts/model_cache_test.sh)
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi
