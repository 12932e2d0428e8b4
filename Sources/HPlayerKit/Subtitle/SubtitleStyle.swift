/// How subtitles are drawn beyond their own styling, as mpv's options set it: `--sub-scale`,
/// `--sub-pos`, `--sub-font` and `--sub-font-size`.
public struct SubtitleStyle: Sendable, Equatable {
    /// Every font size times this: text formats' and ASS scripts' (mpv's default
    /// `--sub-ass-override=scale`). 0 to 100.
    public var scale = 1.0
    /// Where the bottom line sits: 100 (the default) at the bottom margin, 0 at the top, up to
    /// 150 below. For the events a script does not place itself.
    public var position = 100.0
    /// The font of the text formats (an ASS script names its own).
    public var font = "sans-serif"
    /// The size of the text formats' font, in mpv's units: pixels on a picture 720 lines high.
    public var fontSize = 55.0

    public init(scale: Double = 1, position: Double = 100, font: String = "sans-serif", fontSize: Double = 55) {
        self.scale = Self.clamped(scale, 0...100, default: 1)
        self.position = Self.clamped(position, 0...150, default: 100)
        self.font = font.isEmpty ? "sans-serif" : font
        self.fontSize = Self.clamped(fontSize, 1...9000, default: 55)
    }

    private static func clamped(_ value: Double, _ range: ClosedRange<Double>, default fallback: Double) -> Double {
        value.isFinite ? min(max(value, range.lowerBound), range.upperBound) : fallback
    }
}
