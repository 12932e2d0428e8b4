/// Media times and numbers from users can be anything a Double holds: 1e300, infinity, NaN.
/// Swift traps on converting such a value to an integer, so every conversion of a time or a user
/// number goes through here: rounded, clamped to the type's range, and NaN taken as zero.
extension FixedWidthInteger {
    package init(saturating value: Double, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) {
        let rounded = value.rounded(rule)
        if rounded.isNaN {
            self = 0
        } else if rounded >= Double(Self.max) {
            // Double(Int64.max) rounds up to 2^63, which itself does not fit: hence >=.
            self = .max
        } else if rounded <= Double(Self.min) {
            self = .min
        } else {
            self.init(rounded)
        }
    }
}
