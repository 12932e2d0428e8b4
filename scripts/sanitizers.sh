#!/usr/bin/env bash
# Builds the tests with a sanitizer, each in its own scratch folder under .build, and runs the
# unit tests and the lifecycle, seek, loop, speed, IPC, MPRIS, idle, hardening, network, cache,
# audio-group, rendition-start, encoding, raw-stream, hardware-decoding, damaged- and live-stream suites under it;
# hplayer itself, which those suites start, is built with the same sanitizer. Passes only with
# 0 reports, from the test process and from every hplayer it started.
#
#   scripts/sanitizers.sh thread     ThreadSanitizer (data races); the test command runs this one
#   scripts/sanitizers.sh address    AddressSanitizer with LeakSanitizer (memory errors, leaks)
#
# A sanitized build runs several times slower, so a test that measures wall-clock time (tagged
# .realTime) may fail under it: such failures are listed and do not fail the run. A logic test's
# failure does, as in the test command.
set -euo pipefail
cd "$(dirname "$0")/.."
source ./scripts/test-results.sh
source ./scripts/phases.sh
sanitizer="${1:?usage: scripts/sanitizers.sh thread|address}"
case "$sanitizer" in
  thread | address) ;;
  *) echo "sanitizers: '$sanitizer' is not thread or address" >&2; exit 2 ;;
esac
suites='HPlayerKitTests|HPlayerIPCTests|HPlayerMPRISTests|MPRIS|Idle|Metadata|Lifecycle|Seeking|Looping|Speed|IPC|HugeNumbers|NothingDecodable|LoadFileBurst|NamedPipes|LoneBadTimestamp|ByteSources|NetworkPlayback|HLSPlayback|CachePlayback|AudioGroupSwitching|RenditionStart|Encoding|RawStreams|HardwareDecoding|DamagedStreams|LiveStreams'
scratch=".build/sanitize-$sanitizer"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== $sanitizer sanitizer: building in $scratch =="
phase_begin "$sanitizer sanitizer: build" 400
swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" 2>&1 | grep -E 'error|warning: unre|Compiling|Build' | tail -3
phase_end
# Reports from every process go to files of their own (log_path), so none is lost in a test's
# captured stderr. Swift's runtime backtracer would take the sanitizers' signals: off.
export SWIFT_BACKTRACE=enable=no
export HPLAYER_REALTIME_LIST="$work/realtime"
export TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1 log_path=$work/report"
export ASAN_OPTIONS="halt_on_error=0 detect_leaks=1 log_path=$work/report"
status=0
# A sanitizer's runtime cannot start under a file size limit (even `hplayer --version` dies of a
# SIGBUS in it under `ulimit -f`): the cache's write-error test runs in the plain build only.
skip=(--skip writeErrorAndLocalFiles)
# Resident memory means nothing under AddressSanitizer, which holds freed memory back on purpose.
[ "$sanitizer" = address ] && skip+=(--skip openAndClose200Times)
# Nor under either's shadow memory, for a bound in hundreds of MiB.
skip+=(--skip patternReadAheadBounded)
phase_begin "$sanitizer sanitizer: run" 400
swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" --no-parallel \
  --xunit-output "$work/run.xml" --filter "$suites" "${skip[@]}" > "$work/log" 2>&1 || status=$?
phase_end
grep -E '^✔ Test run|^✘ Test run' "$work/log" || tail -20 "$work/log"

reports=$(cat "$work"/report.* 2>/dev/null | grep -cE '^(WARNING: ThreadSanitizer|ERROR: (AddressSanitizer|LeakSanitizer))' || true)
reports=$((reports + $(grep -cE '^(WARNING: ThreadSanitizer|ERROR: (AddressSanitizer|LeakSanitizer))' "$work/log" || true)))
if [ "$reports" -gt 0 ]; then
  echo "== $reports $sanitizer sanitizer report(s) =="
  cat "$work"/report.* 2>/dev/null | head -400 || true
  grep -A40 -E '^(WARNING: ThreadSanitizer|ERROR: (AddressSanitizer|LeakSanitizer))' "$work/log" | head -400 || true
fi

failed_logic=0
if [ "$status" -ne 0 ]; then
  failed=$(failed_tests "$work/run-swift-testing.xml")
  if [ -z "$failed" ]; then
    echo "== the sanitized test run ended with status $status and no failed test: a crash =="
    tail -40 "$work/log"
    failed_logic=1
  fi
  for test in $failed; do
    if grep -qxF "$test" "$HPLAYER_REALTIME_LIST" 2>/dev/null; then
      echo "failed under the sanitizer, a real-time test (slowed down; not counted): $test"
    else
      echo "failed under the sanitizer, a logic test: $test"
      grep -E "✘.*" "$work/log" | head -20
      failed_logic=1
    fi
  done
fi
echo "$sanitizer sanitizer: $reports report(s)"
[ "$reports" -eq 0 ] && [ "$failed_logic" -eq 0 ]
