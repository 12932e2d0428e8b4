# Running the test binary in several processes at once; sourced by test.sh and sanitizers.sh.
# `swift test` holds a lock on its build folder, so a second one waits for the first: the
# processes run the built test binary themselves, as `swift test` does.
#
#   start_tests BINARY LOGS NAME PHASE ARGUMENT...   one process in the background, in a process
#                                                    group of its own; its output in LOGS/NAME.log,
#                                                    its xUnit results in LOGS/NAME.xml
#   wait_tests                                       waits for every started one; returns non-zero
#                                                    when any failed, and prints each one's last
#                                                    line. A process that failed with no failed
#                                                    test in its results (a crash, a kill) is
#                                                    named in $tests_crashed.
#   stop_tests                                       stops those still running, with what they started

_test_processes=()
tests_crashed=""

start_tests() {
  local binary=$1 logs=$2 name=$3 phase=$4
  shift 4
  set -m  # a group of its own: stop_tests stops the hplayer, ffmpeg and servers it started too
  HPLAYER_TEST_PHASE=$phase "$binary" --testing-library swift-testing --xunit-output "$logs/$name.xml" "$@" \
    < /dev/null > "$logs/$name.log" 2>&1 &
  set +m
  _test_processes+=("$!:$logs/$name")
}

wait_tests() {
  local entry pid base code status=0 started=$SECONDS
  for entry in "${_test_processes[@]}"; do
    pid=${entry%%:*} base=${entry#*:}
    code=0
    wait "$pid" || code=$?
    local last
    last=$(grep -aE 'Test run with|Fatal error|Program crashed' "$base.log" | tail -1 | sed 's/\x1b\[[0-9;]*m//g')
    # 69: no test matched the filter (a narrowed run), which swift test takes as success.
    if [ "$code" -eq 0 ] || [ "$code" -eq 69 ]; then
      printf '%-28s %s\n' "$(basename "$base"):" "${last:-no test matched}"
    else
      status=1
      printf '%-28s %s\n' "$(basename "$base"):" "FAILED (exit $code): $last"
      grep -q '<failure' "$base.xml" 2>/dev/null || tests_crashed+="$(basename "$base") "
    fi
  done
  _test_processes=()
  echo "($((SECONDS - started)) s)"
  return "$status"
}

stop_tests() {
  local entry
  for entry in "${_test_processes[@]}"; do
    kill -- -"${entry%%:*}" 2>/dev/null || true
  done
  _test_processes=()
}
