# Wall time per phase of the test command, against a budget; sourced by test.sh and the scripts
# it calls. A phase is recorded where HPLAYER_PHASES names a file (test.sh sets it); run alone,
# a script records nothing.
#
#   phase_begin NAME BUDGET_SECONDS ... phase_end      one phase (not nested)
#   phase_note NAME SECONDS                            a row for work done beside the phases
#                                                      (in the background): shown, not summed
#   phase_table FILE                                   the table, phases over budget flagged

phase_begin() {
  _phase_name=$1 _phase_budget=$2 _phase_start=$(date +%s)
}

phase_end() {
  local seconds=$(( $(date +%s) - _phase_start ))
  [ -z "${HPLAYER_PHASES:-}" ] || printf '%s\t%s\t%s\n' "$_phase_name" "$seconds" "$_phase_budget" >> "$HPLAYER_PHASES"
}

phase_note() {
  [ -z "${HPLAYER_PHASES:-}" ] || printf '(%s)\t%s\t-\n' "$1" "$2" >> "$HPLAYER_PHASES"
}

phase_table() {
  [ -s "$1" ] || return 0
  awk -F'\t' '
    BEGIN { printf "%-58s %8s %8s\n", "phase", "seconds", "budget" }
    $3 == "-" { printf "%-58s %8d %8s\n", $1, $2, "-"; next }
    { over = $2 > $3 ? "  OVER BUDGET" : ""; printf "%-58s %8d %8d%s\n", $1, $2, $3, over; total += $2; budget += $3 }
    END { printf "%-58s %8d %8d%s\n", "total", total, budget, (total > budget ? "  OVER BUDGET" : "") }' "$1"
}

# The N slowest tests in swift-testing's xUnit results $1, with their seconds.
slowest_tests() {
  [ -s "$1" ] || return 0
  awk '/<testcase /{ match($0, /classname="[^"]*"/); c = substr($0, RSTART + 11, RLENGTH - 12)
                     match($0, / name="[^"]*"/); n = substr($0, RSTART + 7, RLENGTH - 8)
                     match($0, /time="[^"]*"/); t = substr($0, RSTART + 6, RLENGTH - 7)
                     printf "%10.1f  %s.%s\n", t, c, n }' "$1" | sort -rn | awk -v most="${2:-10}" 'NR <= most' 
}
