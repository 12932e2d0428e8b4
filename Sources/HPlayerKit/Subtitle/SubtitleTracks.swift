/// The subtitle tracks a player can show, numbered from 1 as mpv's `--sid` counts them: the
/// file's subtitle streams in order, then the external files, then the video's closed captions
/// once they are found. Keeps which one is shown (in the
/// selection the video renderer reads) and whether subtitles are visible.
final class SubtitleTracks: Sendable {
    let selection = SubtitleSelection()

    private struct State {
        var embedded: [SubtitleTrack] = []
        var external: [SubtitleTrack] = []
        var captions: [SubtitleTrack] = []
        var choice: SubtitleChoice
        var selected: SubtitleTrack?
        /// The media's start time, once open: where external files' times count from.
        var startTime: Double?
        /// mpv's --sub-delay, for every track.
        var delay = 0.0
        var all: [SubtitleTrack] { embedded + external + captions }
    }

    private let state: Locked<State>

    init(choice: SubtitleChoice, delay: Double = 0) {
        state = Locked(State(choice: choice, delay: delay))
    }

    /// Seconds every track's cues come later by (earlier when negative).
    var delay: Double {
        get { state.withLock { $0.delay } }
        set {
            state.withLock { state in
                state.delay = newValue
                for track in state.all { track.setDelay(newValue) }
            }
        }
    }

    var all: [SubtitleTrack] { state.withLock { $0.all } }

    /// The number of the track shown; nil when none is.
    var selectedNumber: Int? {
        state.withLock { state in state.selected.flatMap { selected in state.all.firstIndex { $0 === selected } }.map { $0 + 1 } }
    }

    /// An external file's track, shown from now on, as mpv shows a file given with `--sub-file`.
    /// Its times count from the media's start, now or when the media opens.
    func addExternal(_ track: SubtitleTrack) {
        state.withLock { state in
            if let startTime = state.startTime { track.setOffset(startTime) }
            track.setDelay(state.delay)
            state.external.append(track)
            state.selected = track
        }
        selection.track = track
    }

    /// The media is open: its streams join the list, external files are placed on its timeline,
    /// and the track asked for at the start is picked. Returns a warning when that track is not there.
    /// `captionsMayFollow`: the video may carry captions, which would be the next track; a
    /// `--sid` of its number waits for them, and the warning says so.
    func mediaDidOpen(embedded: [SubtitleTrack], startTime: Double, captionsMayFollow: Bool = false) -> String? {
        let (picked, warning) = state.withLock { state -> (SubtitleTrack?, String?) in
            state.embedded = embedded
            state.captions = []
            state.startTime = startTime
            for track in embedded { track.setDelay(state.delay) }
            for track in state.external { track.setOffset(startTime) }
            let all = state.all
            let picks = all.map { Pick(isDefault: $0.description.isDefault, isSupported: $0.unsupportedReason == nil) }
            if captionsMayFollow, state.choice == .number(all.count + 1) {
                return (nil, "--sid \(all.count + 1): there is no such subtitle track (\(all.count) in all) yet: the video's closed captions, if it carries any")
            }
            let (number, warning) = Self.pick(state.choice, among: picks, externalCount: state.external.count)
            state.selected = number.map { all[$0 - 1] }
            return (state.selected, warning)
        }
        selection.track = picked
        return warning
    }

    /// The video's captions, found: listed last, and shown when `--sid` asked for their number.
    /// Returns that number.
    func addCaptions(_ track: SubtitleTrack) -> Int {
        let (number, shows) = state.withLock { state -> (Int, Bool) in
            track.setDelay(state.delay)
            state.captions.append(track)
            let number = state.all.count
            guard state.selected == nil, state.choice == .number(number) else { return (number, false) }
            state.selected = track
            return (number, true)
        }
        if shows { selection.track = track }
        return number
    }

    /// Shows track `number` (from 1), or none for nil.
    func select(_ number: Int?) throws(MediaError) {
        let result = state.withLock { state -> Result<SubtitleTrack?, MediaError> in
            let all = state.all
            guard let number else {
                state.selected = nil
                return .success(nil)
            }
            guard all.indices.contains(number - 1) else {
                return .failure(MediaError(input: "subtitle track \(number)", reason: "there is none (\(all.count) in all)"))
            }
            if let reason = all[number - 1].unsupportedReason {
                return .failure(MediaError(input: "subtitle track \(number)", reason: reason))
            }
            state.selected = all[number - 1]
            return .success(all[number - 1])
        }
        selection.track = try result.get()
    }

    /// What `pick` needs to know of a track.
    struct Pick: Equatable {
        var isDefault: Bool
        var isSupported: Bool
    }

    /// The track to start with, as mpv picks it: the one asked for; else the last external file;
    /// else the first stream the file marks as default that can be shown. Numbered from 1; with a
    /// warning when the track asked for cannot be.
    static func pick(_ choice: SubtitleChoice, among tracks: [Pick], externalCount: Int) -> (number: Int?, warning: String?) {
        switch choice {
        case .off:
            return (nil, nil)
        case .number(let number):
            guard tracks.indices.contains(number - 1) else {
                return (nil, "--sid \(number): there is no such subtitle track (\(tracks.count) in all)")
            }
            guard tracks[number - 1].isSupported else {
                return (nil, "--sid \(number): this track cannot be decoded")
            }
            return (number, nil)
        case .auto:
            if externalCount > 0 { return (tracks.count, nil) }
            return (tracks.firstIndex { $0.isDefault && $0.isSupported }.map { $0 + 1 }, nil)
        }
    }
}
