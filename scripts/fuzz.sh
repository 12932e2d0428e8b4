#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/, with -sanitize=fuzzer,address) and runs each for SECONDS
# (default 600), seeded from ../shared/corpus (where it is), from Fuzz/Seeds and from tiny clips
# made with ffmpeg. Every input in Fuzz/Regressions (each one found crashing once, and fixed) is
# run first. A crash, a leak, a timeout or running out of memory fails the run; the input is
# left under .build/fuzz-findings/TARGET.
#
#   scripts/fuzz.sh [--build-only|--no-build] [SECONDS] [TARGET...]
#                     targets: FuzzMedia FuzzSubtitleText FuzzIPCRequest FuzzHLSPlaylist
#                              FuzzSegmentKeyFrame FuzzOriginPolicy FuzzMPD FuzzSidx FuzzTextFragments
#
# Two targets run at a time, each on a core of its own (libFuzzer runs one thread). The test
# command runs it for 15 s each, having built them with --build-only while the tests ran, at
# idle priority beside its tests: HPLAYER_FUZZ_TIMEOUT (seconds, default 10) is then 60, as an
# input's wall-clock time there counts the moments the tests took the CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
source ./scripts/phases.sh
mode=""
case "${1:-}" in --build-only | --no-build) mode=$1; shift ;; esac
seconds="${1:-600}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(FuzzMedia FuzzSubtitleText FuzzIPCRequest FuzzHLSPlaylist FuzzSegmentKeyFrame FuzzOriginPolicy FuzzMPD FuzzSidx FuzzTextFragments)
scratch=.build/fuzz
corpus_root=.build/fuzz-corpus
findings=.build/fuzz-findings
# fontconfig keeps its configuration for the process's life (scripts/lsan.supp).
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp"
shared=../shared/corpus

# SwiftPM links an executable's entry point as TARGET_main; each target's calls libFuzzer's
# driver. gold cannot link the instrumented objects (an internal error in its DWARF reader): lld.
flags=(-Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -use-ld=lld)
if [ "$mode" != --no-build ]; then
  phase_begin "fuzz: build the ${#targets[@]} targets" 300
  for target in "${targets[@]}"; do
    HPLAYER_FUZZ=1 swift build --scratch-path "$scratch" --product "$target" "${flags[@]}" 2>&1 \
      | grep -vE 'Cannot export local symbol' | grep -E 'error|Build' | tail -2
  done
  phase_end
fi
[ "$mode" != --build-only ] || exit 0

seed() {
  local target=$1 folder=$corpus_root/$1
  mkdir -p "$folder"
  [ -d "Fuzz/Seeds/$target" ] && cp -n Fuzz/Seeds/"$target"/* "$folder"/ 2>/dev/null || true
  case "$target" in
    FuzzMedia)
      if [ -d "$shared" ]; then
        find "$shared" -type f -size -1M ! -name '*.tsv' ! -name '*.md' ! -name '*.m3u8' | while read -r file; do
          cp -n "$file" "$folder/corpus-$(echo "$file" | md5sum | cut -c1-12)" 2>/dev/null || true
        done
      fi
      local clip
      for clip in mp4:libx264 mkv:libx264 webm:libvpx-vp9 ts:mpeg2video avi:mpeg4; do
        [ -e "$folder/made.${clip%%:*}" ] && continue
        ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=64x48:rate=10:duration=0.5 -f lavfi -i sine=d=0.5 \
          -c:v "${clip#*:}" -c:a "$( [ "${clip%%:*}" = webm ] && echo libopus || echo aac )" "$folder/made.${clip%%:*}" || true
      done
      ;;
    FuzzSubtitleText)
      if [ -d "$shared" ]; then
        find "$shared" -type f \( -name '*.ass' -o -name '*.ssa' -o -name '*.srt' -o -name '*.vtt' \) | while read -r file; do
          grep -E '^Dialogue:|[a-zA-Z]' "$file" | head -200 | split -l 1 - "$folder/line-$(basename "$file")-" || true
        done
      fi
      ;;
    FuzzHLSPlaylist)
      if [ -d "$shared" ]; then
        find "$shared" -type f -name '*.m3u8' -size -256k | while read -r file; do
          cp -n "$file" "$folder/corpus-$(echo "$file" | md5sum | cut -c1-12)" 2>/dev/null || true
        done
      fi
      ;;
    FuzzMPD)
      # MPDs of each layout ffmpeg writes, static and live (Fuzz/Seeds has a hand-written one of
      # every element the parser reads).
      local layout template timeline made
      for layout in "1 1" "1 0" "0 0"; do
        read -r template timeline <<< "$layout"
        [ -e "$folder/made-$template$timeline.mpd" ] && continue
        made=$scratch/seed-mpd-$template$timeline
        mkdir -p "$made"
        ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=64x48:rate=10:duration=2 -c:v libx264 -g 10 -f dash -seg_duration 1 \
          -use_template "$template" -use_timeline "$timeline" "$made/manifest.mpd" && cp "$made/manifest.mpd" "$folder/made-$template$timeline.mpd" || true
      done
      ;;
    FuzzSidx)
      # The index ranges of files made with a global sidx.
      if [ ! -e "$folder/made.sidx" ]; then
        ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=64x48:rate=10:duration=3 -c:v libx264 -g 10 \
          -movflags +frag_keyframe+global_sidx+faststart -f mp4 "$scratch/seed-sidx.mp4" && head -c 4096 "$scratch/seed-sidx.mp4" > "$folder/made.sidx" || true
      fi
      ;;
    FuzzSegmentKeyFrame)
      # The first 64 KiB of segments, where the check reads: the corpus's, and ours of each codec,
      # with and without the random access flag, starting on a key frame or not.
      if [ -d "$shared" ]; then
        find "$shared" -type f -name '*.ts' | head -200 | while read -r file; do
          head -c 65536 "$file" > "$folder/corpus-$(echo "$file" | md5sum | cut -c1-12)" 2>/dev/null || true
        done
      fi
      local codec
      for codec in libx264 libx265; do
        [ -e "$folder/made-$codec.ts" ] && continue
        ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=64x48:rate=10:duration=1 -c:v "$codec" -g 4 \
          -x265-params log-level=error -f mpegts "$folder/made-$codec.ts" || true
        ffmpeg -nostdin -v error -y -ss 0.25 -i "$folder/made-$codec.ts" -c copy -f mpegts "$folder/made-$codec-cut.ts" || true
      done
      ;;
  esac
}

# One target: the regression inputs, then SECONDS of fuzzing. Its report goes to
# $findings/TARGET.report, printed when the pair it ran in is done, so that reports do not mix.
fuzz() {
  local target=$1 binary="$scratch/debug/$1" failed=0
  local options=(-timeout="${HPLAYER_FUZZ_TIMEOUT:-10}" -rss_limit_mb=4096 -max_len=262144 -print_final_stats=1 -artifact_prefix="$findings/$target/")
  {
    if [ -d "Fuzz/Regressions/$target" ] && [ -n "$(ls -A "Fuzz/Regressions/$target")" ]; then
      echo "== $target: the regression inputs =="
      "$binary" "${options[@]}" Fuzz/Regressions/"$target"/* 2>&1 | tail -3 || failed=1
    fi
    echo "== $target: $seconds s =="
    if ! "$binary" "${options[@]}" -max_total_time="$seconds" "$corpus_root/$target" > "$findings/$target.log" 2>&1; then
      echo "fuzz: $target found a problem; its input is in $findings/$target:"
      grep -E '^(==[0-9]+==ERROR|SUMMARY|artifact_prefix|Test unit written|.*deadly signal|ALARM|Slowest unit)' "$findings/$target.log" | head -20
      failed=1
    fi
    grep -E '^stat::(number_of_executed_units|peak_rss_mb)|^Done ' "$findings/$target.log" || true
  } > "$findings/$target.report" 2>&1
  return "$failed"
}

status=0
for target in "${targets[@]}"; do
  seed "$target"
  mkdir -p "$findings/$target"
done
phase_begin "fuzz: run the ${#targets[@]} targets, $seconds s each, two at a time" $(( (${#targets[@]} + 1) / 2 * (seconds + 10) ))
for ((index = 0; index < ${#targets[@]}; index += 2)); do
  pair=("${targets[@]:index:2}") pids=()
  for target in "${pair[@]}"; do
    fuzz "$target" &
    pids+=($!)
  done
  for index_in_pair in "${!pids[@]}"; do
    wait "${pids[$index_in_pair]}" || status=1
    cat "$findings/${pair[$index_in_pair]}.report"
  done
done
phase_end
exit "$status"
