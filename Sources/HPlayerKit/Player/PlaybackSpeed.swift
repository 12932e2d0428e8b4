/// The playback speeds HPlayer plays at, and the steps the keys take between them.
public enum PlaybackSpeed {
    /// atempo keeps the pitch over this range (two stages below 0.5).
    public static let range = 0.25...4.0

    /// `speed` within `range`.
    public static func clamped(_ speed: Double) -> Double {
        min(range.upperBound, max(range.lowerBound, speed))
    }

    /// `speed` times `factor`, within the range and rounded to a hundredth (as mpv's keys, so
    /// ten presses of `]` and ten of `[` come back to where they began).
    public static func scaled(_ speed: Double, by factor: Double) -> Double {
        clamped(((speed * factor) * 100).rounded() / 100)
    }

    /// Why `speed` cannot be played, or nil when it can.
    public static func refusal(of speed: Double) -> String? {
        guard speed.isFinite, range.contains(speed) else {
            return "speed \(speed) is out of range (\(range.lowerBound) to \(range.upperBound))"
        }
        return nil
    }

    /// Two decimals, as mpv's notice writes it: "1.10".
    public static func text(_ speed: Double) -> String { DecimalText.fixed(speed, places: 2) }
}
