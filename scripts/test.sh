#!/usr/bin/env bash
# Sets up and runs every test: unit tests, integration tests on clips made with ffmpeg, and the
# sweep over ../shared/corpus (skipped, and said so, where the corpus is absent).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
swift build --build-tests
# Serial: the sync tests measure milliseconds, and a busy neighbour test would blur them.
swift test --skip-build --no-parallel "$@"
