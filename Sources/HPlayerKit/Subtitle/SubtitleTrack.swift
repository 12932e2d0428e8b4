/// One subtitle stream of the file, or an external subtitle file: its description and its cues,
/// kept in order of start for the whole playback, so that a seek back, or a switch to this
/// track, shows them at once. The read thread adds cues; the refresh thread looks them up.
public final class SubtitleTrack: Sendable {
    /// What the track is: its stream or file, codec, language, title.
    public let description: SubtitleTrackDescription
    /// Why this track cannot be shown (a codec libavcodec cannot decode), when it cannot.
    public let unsupportedReason: String?
    /// What its cues are drawn with: the file's own header and fonts for ASS and SSA, HPlayer's
    /// style for the text formats (`SubtitleScript.plainText`).
    public let script: SubtitleScript

    private struct State {
        var cues: [SubtitleCue] = []
        /// Added to the times of the cues shown: an external file's times count from the start
        /// of the media, which may have a start time of its own.
        var offset = 0.0
        /// Added too: mpv's --sub-delay, later for a positive delay.
        var delay = 0.0
        var shift: Double { offset + delay }
        /// The last lookup's answer and the span of media time it holds for, until a cue is added.
        var shown: ShownSubtitle?
        var shownSpan: Range<Double> = 0..<0
    }

    private let state = Locked(State())

    init(description: SubtitleTrackDescription, script: SubtitleScript = .plainText, unsupportedReason: String? = nil) {
        self.description = description
        self.script = script
        self.unsupportedReason = unsupportedReason
    }

    /// Every cue so far, in order of start, offset as shown.
    public var cues: [SubtitleCue] {
        state.withLock { state in state.cues.map { $0.shifted(by: state.shift) } }
    }

    /// Adds `cue` in its place; one already there (read again after a seek back) is ignored. An
    /// earlier cue with no end yet ends where this one starts. A cue that goes on one of the
    /// same text (a segmented track repeats a cue in each segment it spans) lengthens it.
    func add(_ cue: SubtitleCue) {
        state.withLock { state in
            let place = state.cues.partitioningIndex(where: { $0.start > cue.start })
            let sameStart = state.cues[..<place].reversed().prefix(while: { $0.start == cue.start })
            if sameStart.contains(where: { $0.showsTheSame(as: cue) }) { return }
            if let earlier = state.cues[..<place].lastIndex(where: {
                $0.showsTheSame(as: cue) && $0.end >= cue.start - Self.joinTolerance
            }),
               state.cues[earlier].end != .infinity {
                state.cues[earlier].end = max(state.cues[earlier].end, cue.end)
                state.shownSpan = 0..<0
                return
            }
            state.cues.insert(cue, at: place)
            if place > 0, state.cues[place - 1].end == .infinity, state.cues[place - 1].start < cue.start {
                state.cues[place - 1].end = cue.start
            }
            if cue.end == .infinity, place + 1 < state.cues.count {
                state.cues[place].end = state.cues[place + 1].start
            }
            state.shownSpan = 0..<0
        }
    }

    /// What a decoder gave: a cue added, or the one showing ended.
    func take(_ decoded: SubtitleDecoder.Decoded) {
        switch decoded {
        case .cue(let cue): add(cue)
        case .clear(let time): clear(at: time)
        }
    }

    /// Ends the cue showing at `time` (a bitmap format's clear: a PGS display set with no
    /// object, an empty DVB page, which may come before the page's own time-out).
    func clear(at time: Double) {
        state.withLock { state in
            let place = state.cues.partitioningIndex(where: { $0.start >= time })
            guard place > 0, state.cues[place - 1].end > time else { return }
            state.cues[place - 1].end = time
            state.shownSpan = 0..<0
        }
    }

    /// Seconds between a cue's end and the next's start for them to be one (a millisecond: times
    /// in a timescale's units, rounded).
    static let joinTolerance = 0.001

    func setOffset(_ offset: Double) {
        state.withLock { state in
            state.offset = offset
            state.shownSpan = 0..<0
        }
    }

    func setDelay(_ delay: Double) {
        state.withLock { state in
            state.delay = delay
            state.shownSpan = 0..<0
        }
    }

    /// The cues showing at media time `pts`; nil when none is. Cheap while the answer holds (the
    /// same value back, nothing made), so it can be asked at every frame.
    public func shown(at pts: Double) -> ShownSubtitle? {
        state.withLock { state in
            if state.shownSpan.contains(pts) { return state.shown }
            let local = pts - state.shift
            var showing: [SubtitleCue] = []
            // The span the answer holds for: from the latest change at or before `pts` to the
            // first one after it.
            var from = -Double.infinity, until = Double.infinity
            for cue in state.cues {
                if cue.start > local {
                    until = min(until, cue.start)
                    break
                }
                if cue.end > local {
                    showing.append(cue.shifted(by: state.shift))
                    from = max(from, cue.start)
                    until = min(until, cue.end)
                } else {
                    from = max(from, cue.end)
                }
            }
            state.shown = showing.isEmpty ? nil : ShownSubtitle(cues: showing, script: script)
            state.shownSpan = from < until ? (from + state.shift)..<(until + state.shift) : 0..<0
            return state.shown
        }
    }
}

/// What a subtitle track is, for the track list and the notices.
public struct SubtitleTrackDescription: Sendable, Equatable {
    /// The stream's index in the file; nil for an external file.
    public var streamIndex: Int?
    /// The external file's path.
    public var path: String?
    /// libavcodec's name of the codec ("subrip", "ass", "webvtt", "hdmv_pgs_subtitle").
    public var codec: String
    /// The language tag, as the file has it (ISO 639-2, "eng"), when it has one.
    public var language: String?
    /// The title tag; nil for an external file.
    public var title: String?
    /// The file marks the stream as the default subtitles.
    public var isDefault: Bool

    /// The external file's name, without its folder.
    public var fileName: String? { path.map { $0.split(separator: "/").last.map(String.init) ?? $0 } }

    /// A description, as the fields say.
    public init(streamIndex: Int?, path: String?, codec: String, language: String?, title: String?, isDefault: Bool) {
        self.streamIndex = streamIndex
        self.path = path
        self.codec = codec
        self.language = language
        self.title = title
        self.isDefault = isDefault
    }
}

extension Array {
    /// The first index whose element satisfies `belongsAfter`, for an array partitioned by it.
    func partitioningIndex(where belongsAfter: (Element) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if belongsAfter(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
