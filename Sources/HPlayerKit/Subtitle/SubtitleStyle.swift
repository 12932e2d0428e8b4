/// How subtitles are drawn beyond their own styling, as mpv's options set it: `--sub-scale`,
/// `--sub-pos`, `--sub-font`, `--sub-font-size` and `--sub-ass-override`.
public struct SubtitleStyle: Sendable, Equatable {
    /// Every font size times this: text formats' always, ASS scripts' as `assOverride` says. 0 to 100.
    public var scale = 1.0
    /// Where the bottom line sits: 100 (the default) at the bottom margin, 0 at the top, up to
    /// 150 below. For the events a script does not place itself.
    public var position = 100.0
    /// The font of the text formats (an ASS script names its own).
    public var font = "sans-serif"
    /// The size of the text formats' font, in mpv's units: pixels on a picture 720 lines high.
    public var fontSize = 55.0
    /// How much of the above an ASS script takes (the text formats take it all).
    public var assOverride = ASSOverride.yes

    public init(scale: Double = 1, position: Double = 100, font: String = "sans-serif", fontSize: Double = 55,
                assOverride: ASSOverride = .yes) {
        self.scale = Self.clamped(scale, 0...100, default: 1)
        self.position = Self.clamped(position, 0...150, default: 100)
        self.font = font.isEmpty ? "sans-serif" : font
        self.fontSize = Self.clamped(fontSize, 1...9000, default: 55)
        self.assOverride = assOverride
    }

    private static func clamped(_ value: Double, _ range: ClosedRange<Double>, default fallback: Double) -> Double {
        value.isFinite ? min(max(value, range.lowerBound), range.upperBound) : fallback
    }
}

/// mpv's `--sub-ass-override`: what of the user's style an ASS script is drawn with. The values
/// do what Debian's mpv 0.35 does with the same libass (its default `yes`).
public enum ASSOverride: String, Sendable, Equatable, CaseIterable {
    /// As the script says: neither `--sub-scale` nor `--sub-pos`.
    case no
    /// `--sub-scale` on every line, `--sub-pos` on the lines the script does not place.
    case yes
    /// As `yes`, but `--sub-scale` only on the lines the script does not place or style with
    /// tags of their own (libass's selective font scale).
    case scale
    /// As `scale`, and the script's styles replaced by the text formats' (`--sub-font`,
    /// `--sub-font-size`, white on a black outline, bottom centre) on those lines too.
    case force
    /// Every tag and style taken out: the text alone, drawn as the text formats are.
    case strip
}
