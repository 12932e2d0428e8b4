#!/usr/bin/env bash
# Runs the real-time tests (tagged .realTime: they measure wall-clock time) N times and prints
# each one's failure rate, with the CPU time the host stole during the runs it failed in. A test
# that fails over 5 % of runs on a quiet machine is a bug, in the player or in the test.
#
#   scripts/flaky.sh [N]     (default 10)
#
# The first run goes over every integration test, which is how the real-time ones are found
# (each writes its name to $HPLAYER_REALTIME_LIST as it runs); the next N-1 run only those.
set -euo pipefail
cd "$(dirname "$0")/.."
source ./scripts/test-results.sh
runs=${1:-10}
./scripts/setup.sh --for-tests > /dev/null
source ./scripts/test-servers.sh
start_test_servers
trap stop_test_servers EXIT
swift build --build-tests > /dev/null

work=$(mktemp -d)
export HPLAYER_REALTIME_LIST="$work/realtime"
# user+nice+system+idle+iowait+irq+softirq+steal, and steal, from the cpu line of /proc/stat.
cpu_times() { awk '/^cpu /{ print $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9, $9 }' /proc/stat; }

for run in $(seq 1 "$runs"); do
  if [ "$run" -eq 1 ]; then
    filter=(--filter HPlayerIntegrationTests)
  else
    pattern=$(sort -u "$HPLAYER_REALTIME_LIST" | sed 's/$/\\(/' | paste -sd'|')
    filter=(--filter "$pattern")
  fi
  read -r total_a steal_a < <(cpu_times)
  swift test --skip-build --no-parallel --xunit-output "$work/run.xml" "${filter[@]}" > "$work/log-$run" 2>&1 || true
  read -r total_b steal_b < <(cpu_times)
  steal=$(( 100 * (steal_b - steal_a) / (total_b - total_a > 0 ? total_b - total_a : 1) ))
  failed_tests "$work/run-swift-testing.xml" > "$work/failed-$run"
  echo "run $run of $runs: $(wc -l < "$work/failed-$run") failed, CPU steal $steal %"
  echo "$steal" > "$work/steal-$run"
done

echo "== failure rate of each real-time test over $runs runs (steal % in the runs it failed) =="
status=0
for test in $(sort -u "$HPLAYER_REALTIME_LIST"); do
  failures=0
  steals=""
  for run in $(seq 1 "$runs"); do
    if grep -qxF "$test" "$work/failed-$run"; then
      failures=$((failures + 1))
      steals="$steals $(cat "$work/steal-$run")"
    fi
  done
  rate=$(( 100 * failures / runs ))
  printf '%3d %%  %d/%d  %s%s\n' "$rate" "$failures" "$runs" "$test" "${steals:+  (steal:$steals)}"
  if [ $((failures * 20)) -gt "$runs" ]; then status=1; fi
done
# A logic test that failed in the first run is a bug whatever the machine did.
logic=$(grep -vxF -f <(sort -u "$HPLAYER_REALTIME_LIST") "$work/failed-1" || true)
if [ -n "$logic" ]; then
  echo "== logic tests that failed (never flaky: a bug) =="
  echo "$logic"
  status=1
fi
rm -rf "$work"
exit "$status"
