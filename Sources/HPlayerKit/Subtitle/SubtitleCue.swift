/// One subtitle event: plain text shown from `start` until `end`, in media seconds (the
/// timestamps frames carry as `mediaPts`).
public struct SubtitleCue: Sendable, Equatable {
    /// Media seconds it comes on screen.
    public var start: Double
    /// `.infinity` until the next cue of its track is known, for formats that give no duration.
    public var end: Double
    /// The text, lines separated by "\n", styling taken out.
    public var text: String

    /// A cue, as the fields say.
    public init(start: Double, end: Double, text: String) {
        self.start = start
        self.end = end
        self.text = text
    }
}

/// What is on screen with a frame: the cues showing at its time (several when they overlap),
/// and their text, one cue below the other.
public struct ShownSubtitle: Sendable, Equatable {
    /// The cues showing, in order of start.
    public var cues: [SubtitleCue]
    /// Their text, joined by "\n": what to draw.
    public var text: String

    init(cues: [SubtitleCue]) {
        self.cues = cues
        text = cues.map(\.text).joined(separator: "\n")
    }
}
