/// One subtitle event: plain text shown from `start` until `end`, in media seconds (the
/// timestamps frames carry as `mediaPts`).
public struct SubtitleCue: Sendable, Equatable {
    public var start: Double
    /// `.infinity` until the next cue of its track is known, for formats that give no duration.
    public var end: Double
    public var text: String

    public init(start: Double, end: Double, text: String) {
        self.start = start
        self.end = end
        self.text = text
    }
}

/// What is on screen with a frame: the cues showing at its time (several when they overlap),
/// and their text, one cue below the other.
public struct ShownSubtitle: Sendable, Equatable {
    public var cues: [SubtitleCue]
    public var text: String

    init(cues: [SubtitleCue]) {
        self.cues = cues
        text = cues.map(\.text).joined(separator: "\n")
    }
}
