#!/usr/bin/env bash
# Quick start, command 1: install what is missing, then run anvil-opt. Without arguments it runs
# the default pipeline on the embedded default model; arguments are passed to anvil-opt.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec bazel run --ui_event_filters=-info,-stdout --noshow_progress //tools:anvil-opt -- "$@"
