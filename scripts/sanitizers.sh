#!/usr/bin/env bash
# Builds the tests with a sanitizer, each in its own scratch folder under .build, and runs the
# unit tests (in parallel) and, in three processes at once, the lifecycle, seek, loop, speed,
# IPC, MPRIS, idle, load-burst, named-pipe, byte-source, network, HLS, cache, audio-group,
# rendition-start, DASH text, encoding, raw-stream, hardware-decoding and live-stream suites under it;
# hplayer itself, which those suites start, is built with the same sanitizer. Passes only with
# 0 reports, from the test process and from every hplayer it started.
#
#   scripts/sanitizers.sh thread     ThreadSanitizer (data races); the test command runs this one
#   scripts/sanitizers.sh address    AddressSanitizer with LeakSanitizer (memory errors, leaks)
#   ... --build-only | --no-build    the build alone, or the run alone on what is built (the test
#                                    command builds while its tests run, then runs)
#
# A sanitized build runs several times slower, so the integration suites' tests that measure
# wall-clock time (tagged .realTime) are not run under it: they would measure nothing, and took
# a third of its time. A unit test tagged so may fail under it: such failures are listed and do
# not fail the run. A logic test's failure does, as in the test command.
set -euo pipefail
cd "$(dirname "$0")/.."
source ./scripts/test-results.sh
source ./scripts/phases.sh
source ./scripts/test-processes.sh
sanitizer="${1:?usage: scripts/sanitizers.sh thread|address [--build-only|--no-build]}"
case "$sanitizer" in
  thread | address) ;;
  *) echo "sanitizers: '$sanitizer' is not thread or address" >&2; exit 2 ;;
esac
mode="${2:-}"
case "$mode" in
  "" | --build-only | --no-build) ;;
  *) echo "sanitizers: '$mode' is not --build-only or --no-build" >&2; exit 2 ;;
esac
# The unit tests of these modules, in parallel in one process; the integration suites that drive
# the player's threads, one test at a time in each of three processes, split by their measured
# times under ThreadSanitizer. (The suites of damaged input, and the corpus sweep, run in the
# plain build alone: they drive the same threads as these, over other bytes.)
units='^(HPlayerKitTests|HPlayerIPCTests|HPlayerMPRISTests)\.'
integration=('Playback/(HLSPlayback|NamedPipes|Idle|IPCObservers|MPRIS|RenditionStart|Lifecycle|DASHText|HLSText)/'
             'Playback/(CachePlayback|Encoding|HardwareDecoding|Metadata|MetadataInTheWindow)/'
             'Playback/(NetworkPlayback|LiveStreams|Seeking|Looping|Speed|IPC|AudioGroupSwitching|RawStreams|LoadFileBurst|ByteSources)/')
scratch=".build/sanitize-$sanitizer"
# Each process's log and xUnit results, and the sanitizer's reports, stay here after the run.
work="$PWD/.build/test-logs/$sanitizer-sanitizer"

if [ "$mode" != --no-build ]; then
  echo "== $sanitizer sanitizer: building in $scratch =="
  phase_begin "$sanitizer sanitizer: build" 400
  swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" 2>&1 | grep -E 'error|warning: unre|Compiling|Build' | tail -3
  phase_end
fi
[ "$mode" != --build-only ] || exit 0
rm -rf "$work"
mkdir -p "$work"
trap stop_tests EXIT
# Reports from every process go to files of their own (log_path), so none is lost in a test's
# captured stderr. Swift's runtime backtracer would take the sanitizers' signals: off.
export SWIFT_BACKTRACE=enable=no
export HPLAYER_REALTIME_LIST="$work/realtime"
export TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1 log_path=$work/report"
export ASAN_OPTIONS="halt_on_error=0 detect_leaks=1 log_path=$work/report"
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp"
status=0
# A sanitizer's runtime cannot start under a file size limit (even `hplayer --version` dies of a
# SIGBUS in it under `ulimit -f`): the cache's write-error test runs in the plain build only.
skip=(--skip writeErrorAndLocalFiles)
# Resident memory means nothing under AddressSanitizer, which holds freed memory back on purpose.
[ "$sanitizer" = address ] && skip+=(--skip openAndClose200Times)
# Nor under either's shadow memory, for a bound in hundreds of MiB.
skip+=(--skip patternReadAheadBounded)
tests="$scratch/debug/HPlayerPackageTests.xctest"
phase_begin "$sanitizer sanitizer: run (four processes)" 340
start_tests "$tests" "$work" units "" --filter "$units" "${skip[@]}"
for index in "${!integration[@]}"; do
  start_tests "$tests" "$work" "integration-$((index + 1))" logic --no-parallel --filter "${integration[$index]}" "${skip[@]}"
done
wait_tests || status=$?
phase_end
cat "$work"/*.log > "$work/log"

# ThreadSanitizer's reports start "WARNING: ThreadSanitizer"; AddressSanitizer's and
# LeakSanitizer's "==PID==ERROR: …" (and a sanitizer's crash report "==PID==ERROR" too).
pattern='^(==[0-9]+==)?(WARNING|ERROR): (ThreadSanitizer|AddressSanitizer|LeakSanitizer)'
reports=$(cat "$work"/report.* 2>/dev/null | grep -cE "$pattern" || true)
reports=$((reports + $(grep -cE "$pattern" "$work/log" || true)))
if [ "$reports" -gt 0 ]; then
  echo "== $reports $sanitizer sanitizer report(s) =="
  cat "$work"/report.* 2>/dev/null | head -400 || true
  grep -A40 -E "$pattern" "$work/log" | head -400 || true
fi

failed_logic=0
if [ "$status" -ne 0 ]; then
  failed=$(for results in "$work"/*.xml; do failed_tests "$results"; done | sort -u)
  if [ -n "$tests_crashed" ]; then
    echo "== the sanitized test run: ended with no failed test in its results (a crash, or killed): $tests_crashed=="
    for name in $tests_crashed; do tail -40 "$work/$name.log"; done
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
