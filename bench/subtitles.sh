#!/usr/bin/env bash
# What drawing subtitles costs, against mpv drawing the same with the same libass, in one run:
# a 1080p30 H.264 clip played to its end in a 1280x720 window on an X server (Xvfb and a
# PulseAudio null sink started when none is running, as the tests do), with no subtitles, one
# SubRip cue of two lines on throughout, and a busy ASS script (200 events, 40 on screen at
# once, each with \move and \fad).
#   hplayer FILE --ao null --sub-file S  vs  mpv --no-config --vo=x11 --ao=null --sub-file=S FILE
# CPU seconds (user + system), wall seconds and peak resident memory of the player process; the
# X server's own drawing is not counted. Runs alternate between the players; figures are medians.
# Usage: bench/subtitles.sh [RUNS] [SECONDS]    (defaults: 2 runs, a 10 s clip)
#        bench/subtitles.sh --smoke             (once, a 2 s 320x180 clip: the harness runs)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-2}
seconds=${2:-10}
smoke=""
if [ "$runs" = --smoke ]; then runs=1; seconds=2; smoke=yes; fi
work=$(mktemp -d)
source bench/common.sh
source scripts/test-servers.sh
start_test_servers
trap 'stop_test_servers; rm -rf "$work"' EXIT
for tool in mpv ffmpeg python3; do command -v "$tool" >/dev/null || { echo "bench: needs $tool" >&2; exit 1; }; done

build_release
clip="$work/clip.mp4"
if [ -n "$smoke" ]; then
  ffmpeg -v error -f lavfi -i "testsrc2=size=320x180:rate=30:duration=$seconds" -c:v libx264 -preset ultrafast "$clip"
else
  make_1080p_clip "$clip" "$seconds"
fi
printf '1\n00:00:00,000 --> 00:%02d:%02d,000\nA subtitle of two lines,\non screen all along\n\n' $((seconds / 60)) $((seconds % 60)) >"$work/one.srt"
# 200 events over the clip, 40 showing at any time: each lasts a fifth of it, and moves and fades.
python3 - "$seconds" >"$work/busy.ass" <<'PY'
import sys
seconds = float(sys.argv[1])
print("[Script Info]\nScriptType: v4.00+\nPlayResX: 1280\nPlayResY: 720\n\n[V4+ Styles]")
print("Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, "
      "Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, "
      "MarginV, Encoding")
print("Style: Default,DejaVu Sans,28,&H00FFFFFF,&H000000FF,&H00000000,&H80000000,0,0,0,0,100,100,0,0,1,2,1,7,10,10,10,1")
print("\n[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text")
def stamp(t):
    return "%d:%02d:%05.2f" % (t // 3600, t % 3600 // 60, t % 60)
for n in range(200):
    start = seconds * n / 200
    end = min(seconds, start + seconds / 5)
    y = 20 + (n % 40) * 17
    print(f"Dialogue: 0,{stamp(start)},{stamp(end)},Default,,0,0,0,,"
          f"{{\\move(1280,{y},-400,{y})\\fad(200,200)\\c&H{(n * 2654435761) % 0xFFFFFF:06X}&}}Line {n}: moving and fading")
PY

echo "clip: $( [ -n "$smoke" ] && echo 320x180 || echo "1080p30 H.264 ($(describe_clip "$clip"))" ), $seconds s, in a 1280x720 window on $DISPLAY (Xvfb), --ao null; $runs runs each, alternating; $(nproc) cores"
echo
echo "  subtitles              player     wall s   cpu s   peak RSS MiB   cpu / mpv   memory / mpv"
for case in none one busy; do
  case $case in
    none) ours=(); theirs=() ;;
    one) ours=(--sub-file "$work/one.srt"); theirs=(--sub-file="$work/one.srt") ;;
    busy) ours=(--sub-file "$work/busy.ass"); theirs=(--sub-file="$work/busy.ass") ;;
  esac
  : >"$work/hplayer"; : >"$work/mpv"
  for _ in $(seq "$runs"); do
    measure "$hplayer" "$clip" --no-status --ao null --geometry 1280x720+0+0 "${ours[@]}" >>"$work/hplayer"
    measure mpv --no-config --really-quiet --vo=x11 --ao=null --geometry=1280x720+0+0 "${theirs[@]}" "$clip" >>"$work/mpv"
  done
  mpv_cpu=$(column 2 "$work/mpv"); mpv_rss=$(column 3 "$work/mpv")
  for player in hplayer mpv; do
    wall=$(column 1 "$work/$player"); cpu=$(column 2 "$work/$player"); rss=$(column 3 "$work/$player")
    printf "  %-22s %-9s %7.2f %7.2f %14s %11s %14s\n" "$case" "$player" "$wall" "$cpu" "$(mib "$rss")" \
      "$(ratio "$cpu" "$mpv_cpu")" "$(ratio "$rss" "$mpv_rss")"
  done
done
echo
echo "target (issue 36): hplayer's CPU and memory at or below mpv's (ratios at most 1.00), for the busy script too"
