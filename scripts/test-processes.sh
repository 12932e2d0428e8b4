# Running the test binary in several processes at once; sourced by test.sh and sanitizers.sh.
# `swift test` holds a lock on its build folder, so a second one waits for the first: the
# processes run the built test binary themselves, as `swift test` does.
#
#   start_tests BINARY LOGS NAME PHASE ARGUMENT...   one process in the background; its output in
#                                                    LOGS/NAME.log, its xUnit results in LOGS/NAME.xml
#   wait_tests                                       waits for every started one; returns non-zero
#                                                    when any failed, and prints each one's last line

_test_processes=()

start_tests() {
  local binary=$1 logs=$2 name=$3 phase=$4
  shift 4
  HPLAYER_TEST_PHASE=$phase "$binary" --testing-library swift-testing --xunit-output "$logs/$name.xml" "$@" \
    > "$logs/$name.log" 2>&1 &
  _test_processes+=("$!:$logs/$name")
}

wait_tests() {
  local entry pid base status=0 started=$SECONDS
  for entry in "${_test_processes[@]}"; do
    pid=${entry%%:*} base=${entry#*:}
    if wait "$pid"; then
      printf '%-28s %s\n' "$(basename "$base"):" "$(grep -aE 'Test run with' "$base.log" | tail -1 | sed 's/\x1b\[[0-9;]*m//g')"
    else
      status=1
      printf '%-28s %s\n' "$(basename "$base"):" "FAILED: $(grep -aE 'Test run with|Fatal error|Program crashed' "$base.log" | tail -1 | sed 's/\x1b\[[0-9;]*m//g')"
    fi
  done
  _test_processes=()
  echo "($((SECONDS - started)) s)"
  return "$status"
}
