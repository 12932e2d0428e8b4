# Reading swift-testing's xUnit results; sourced by test.sh and sanitizers.sh.

# The failed tests in the results file $1, one a line, as `Module.Suite.function` (what a
# .realTime test writes to $HPLAYER_REALTIME_LIST, and what `swift test --filter` takes).
failed_tests() {
  awk '/<testcase /{ match($0, /classname="[^"]*"/); c = substr($0, RSTART + 11, RLENGTH - 12)
                     match($0, / name="[^"(]*/); n = substr($0, RSTART + 7, RLENGTH - 7) }
       /<failure/{ print c "." n }' "$1" 2>/dev/null | sort -u || true
}
