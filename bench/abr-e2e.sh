#!/usr/bin/env bash
# End to end: the real player plays an ffmpeg-made HLS ladder (300 to 2850 kb/s, 4 s segments,
# 160 s) at 1x from the fault server, which replays a throughput trace as its rate schedule, once
# per policy; its QoE_lin from --stats-dir (bench/abr_qoe.py) against what `hplayer abr-sim`
# predicts for the same trace and ladder (no round trip added, 30 s read ahead as the player is
# given). Usage: bench/abr-e2e.sh [TRACE...]   (default: a Norway trace, an FCC trace, and a step:
# 3 Mb/s for 20 s, 40 s at 0.5 Mb/s, then 3 Mb/s; a step alone with the argument "step"). ABR_POLICIES="auto seed"
# runs only those (default: all four). ABR_FORMAT=dash plays the same ladder as a DASH MPD.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
source bench/common.sh
trap 'stop_server; rm -rf "$work"' EXIT
for tool in ffmpeg python3; do command -v "$tool" >/dev/null || { echo "bench: needs $tool" >&2; exit 1; }; done
build_release

# The simulator repeats a trace past its end, the server holds its last rate: the step's last
# line is past any session.
printf '0\t3.0\n20\t0.5\n60\t3.0\n3600\t3.0\n' > "$work/step"
traces=("$@")
if [ ${#traces[@]} -eq 0 ]; then
  traces=(../shared/traces/norway/norway_bus_1 ../shared/traces/fcc/trace_10322_http---edition.cnn.com "$work/step")
fi
for index in "${!traces[@]}"; do [ "${traces[$index]}" = step ] && traces[$index]="$work/step"; done
read -r -a policies <<< "${ABR_POLICIES:-auto bola throughput seed}"

echo "making the ladder..." >&2
rates=(300 750 1200 1850 2850)
make_abr_ladder "$work/www" 160 "${rates[@]}"
manifest=$([ "${ABR_FORMAT:-hls}" = dash ] && echo manifest.mpd || echo master.m3u8)
kbps=$(IFS=,; echo "${rates[*]}")

# A trace's lines as the fault server's schedule: each rate for the time to the next line, the last for ever.
schedule() {
  awk -F'\t' 'NR > 1 { printf "%s%.3f:%d", sep, $1 - t, r; sep = "," } { t = $1; r = $2 * 125000 } END { printf "%s0:%d\n", sep, r }' "$1"
}

printf 'trace\tpolicy\tQoE_lin player\tQoE_lin simulated\tratio\tMb/s\tstalled s\tswitches\n'
for trace in "${traces[@]}"; do
  for policy in "${policies[@]}"; do
    serve_faults "$work/requests.jsonl" --rate-schedule "$(schedule "$trace")" --trace-clock
    rm -rf "$work/stats"
    timeout 600 "$hplayer" "$base/$manifest" --vo null --ao null --no-status --cache=no --cache-secs 30 \
      --hls-abr "$policy" --stats-dir "$work/stats" >/dev/null 2> "$work/player.err" || { echo "bench: $policy over $trace: exit $?" >&2; tail -3 "$work/player.err" >&2; }
    read -r qoe mbps stalled switches _ < <(python3 bench/abr_qoe.py "$work/stats" "$kbps")
    predicted=$("$hplayer" abr-sim "$trace" --ladder "$work/www/$manifest" --policy "$policy" --latency 0 --max-buffer 30 | awk -F'\t' 'NR == 3 { print $4 }')
    ratio=$(awk -v a="$qoe" -v b="$predicted" 'BEGIN { printf "%.2f", b != 0 ? a / b : 0 }')
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(basename "$trace")" "$policy" "$qoe" "$predicted" "$ratio" "$mbps" "$stalled" "$switches"
  done
done
