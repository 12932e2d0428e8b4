#!/usr/bin/env bash
# Sets up and runs every test: unit tests, integration tests on clips made with ffmpeg, the
# desktop tests on an X server and a sound server, the sweep over ../shared/corpus (skipped,
# and said so, where the corpus is absent), and a smoke run of the benchmark harness. Starts its own Xvfb and PulseAudio (with a null sink)
# when none is running, and stops them after.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh --for-tests
source ./scripts/test-servers.sh
start_test_servers
trap stop_test_servers EXIT

swift build --build-tests
# Serial: the sync tests measure milliseconds, and a busy neighbour test would blur them.
# The log is kept so that the failures can be repeated at the end, where a CI tail shows them.
log=$(mktemp)
status=0
swift test --skip-build --no-parallel "$@" 2>&1 | tee "$log" || status=$?
if [ "$status" -ne 0 ]; then
  echo "== failed =="
  grep -E '✘|error:|fatal|Fatal' "$log" | grep -v '^.*✔' || true
fi
rm -f "$log"
# The benchmark harness, once through on a small clip, so it does not rot (no figures are judged).
if [ "$status" -eq 0 ]; then
  echo "== bench/compare.sh --smoke =="
  bench/compare.sh --smoke || status=$?
fi
exit "$status"
