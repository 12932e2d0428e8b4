#!/usr/bin/env bash
# Sets up and runs every test: unit tests, integration tests on clips made with ffmpeg, the
# desktop tests on an X server and a sound server, and the sweep over ../shared/corpus (skipped,
# and said so, where the corpus is absent). Starts its own Xvfb and PulseAudio (with a null sink)
# when none is running, and stops them after.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh --for-tests
source ./scripts/test-servers.sh
start_test_servers
trap stop_test_servers EXIT

swift build --build-tests
# Serial: the sync tests measure milliseconds, and a busy neighbour test would blur them.
swift test --skip-build --no-parallel "$@"
