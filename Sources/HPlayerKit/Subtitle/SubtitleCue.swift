/// One subtitle event, shown from `start` until `end`, in media seconds (the timestamps frames
/// carry as `mediaPts`): its plain text, and the ASS event it came as when it came as one, or
/// the picture it came as (a bitmap format).
public struct SubtitleCue: Sendable, Equatable {
    /// Media seconds it comes on screen.
    public var start: Double
    /// `.infinity` until the next cue of its track is known, for formats that give no duration.
    public var end: Double
    /// The text, lines separated by "\n", styling taken out.
    public var text: String
    /// The event as libass takes it, "ReadOrder,Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text"
    /// (as Matroska stores ASS, and as libavcodec gives every text format it converts), one a
    /// line when a packet held several; nil for a cue read as plain text (WebVTT and TTML in
    /// segments), drawn in the default style.
    public var event: String?
    /// The picture of a bitmap format's cue (its text then empty); nil for text.
    public var bitmaps: SubtitleBitmaps?

    /// A cue, as the fields say.
    public init(start: Double, end: Double, text: String, event: String? = nil, bitmaps: SubtitleBitmaps? = nil) {
        self.start = start
        self.end = end
        self.text = text
        self.event = event
        self.bitmaps = bitmaps
    }

    /// The same cue `offset` seconds later.
    func shifted(by offset: Double) -> SubtitleCue {
        var cue = self
        cue.start += offset
        cue.end += offset
        return cue
    }

    /// Whether it draws anything: text, a picture, or an ASS event with a text field (a drawing);
    /// not a caption screen cleared, which is an event of no text.
    public var showsAnything: Bool {
        guard bitmaps == nil, text.isEmpty else { return true }
        return event?.split(separator: "\n").contains { line in
            // The text is the field after ReadOrder, Layer, Style, Name, MarginL, MarginR, MarginV, Effect.
            line.split(separator: ",", maxSplits: 8, omittingEmptySubsequences: false).dropFirst(8).first.map { !$0.isEmpty } ?? false
        } ?? false
    }

    /// The same text, event and picture, whatever the times.
    func showsTheSame(as other: SubtitleCue) -> Bool {
        text == other.text && event == other.event && bitmaps == other.bitmaps
    }
}

/// What is on screen with a frame: the cues showing at its time (several when they overlap),
/// their text, one cue below the other, and the script they are drawn with; and the secondary
/// track's cues (mpv's `--secondary-sid`), drawn as plain text at the top.
public struct ShownSubtitle: Sendable, Equatable {
    /// The cues showing, in order of start; none while the primary track is hidden or none is
    /// selected.
    public var cues: [SubtitleCue]
    /// Their text, joined by "\n": what the IPC and the recording outputs tell.
    public var text: String
    /// Their track's header and fonts.
    public var script: SubtitleScript
    /// The user's scale, position and text font they are drawn with.
    public var style: SubtitleStyle
    /// The secondary track's cues showing.
    public var secondary: [SubtitleCue]
    /// Their text, joined by "\n" (mpv's secondary-sub-text); made when asked, not at each frame.
    public var secondaryText: String { secondary.map(\.text).joined(separator: "\n") }

    init(cues: [SubtitleCue], script: SubtitleScript, style: SubtitleStyle = SubtitleStyle(), secondary: [SubtitleCue] = []) {
        self.cues = cues
        self.script = script
        self.style = style
        self.secondary = secondary
        text = cues.map(\.text).joined(separator: "\n")
    }

    public static func == (lhs: ShownSubtitle, rhs: ShownSubtitle) -> Bool {
        lhs.script === rhs.script && lhs.cues == rhs.cues && lhs.style == rhs.style && lhs.secondary == rhs.secondary
    }
}

/// What a track's cues are drawn with besides themselves: the ASS script header (its styles and
/// play resolution) and the fonts the media carries. One for a track, compared by identity.
public final class SubtitleScript: Sendable {
    public let header: String
    public let fonts: [EmbeddedFont]

    init(header: String, fonts: [EmbeddedFont] = []) {
        self.header = header
        self.fonts = fonts
    }

    /// For every track that did not come as ASS: HPlayer's default style.
    static let plainText = SubtitleScript(header: ASSScript.textHeader)
}

/// A font a media file carries (a Matroska attachment): its file name and its bytes.
public struct EmbeddedFont: Sendable, Equatable {
    public var name: String
    public var data: [UInt8]

    public init(name: String, data: [UInt8]) {
        self.name = name
        self.data = data
    }
}
