/// The subtitle tracks a player can show, numbered from 1 as mpv's `--sid` counts them: the
/// file's subtitle streams in order, then the external files, then the video's closed captions
/// once they are found. Keeps which one is shown and which secondary one (in the selection the
/// video renderer reads), and whether subtitles are visible.
final class SubtitleTracks: Sendable {
    let selection = SubtitleSelection()

    private struct State {
        var embedded: [SubtitleTrack] = []
        var external: [SubtitleTrack] = []
        var captions: [SubtitleTrack] = []
        var choice: SubtitleChoice
        var secondaryChoice: SubtitleChoice
        /// mpv's --slang: the languages to pick a track by, in order of preference.
        var languages: [String]
        var selected: SubtitleTrack?
        var secondary: SubtitleTrack?
        /// The media's start time, once open: where external files' times count from.
        var startTime: Double?
        /// mpv's --sub-delay, for every track.
        var delay = 0.0
        var all: [SubtitleTrack] { embedded + external + captions }
    }

    private let state: Locked<State>

    init(choice: SubtitleChoice, secondary: SubtitleChoice = .off, languages: [String] = [], delay: Double = 0) {
        state = Locked(State(choice: choice, secondaryChoice: secondary, languages: languages, delay: delay))
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

    /// The number of the secondary track shown; nil when none is.
    var secondaryNumber: Int? {
        state.withLock { state in state.secondary.flatMap { secondary in state.all.firstIndex { $0 === secondary } }.map { $0 + 1 } }
    }

    /// An external file's track, shown from now on, as mpv shows a file given with `--sub-file`.
    /// Its times count from the media's start, now or when the media opens.
    func addExternal(_ track: SubtitleTrack) {
        state.withLock { state in
            if let startTime = state.startTime { track.setOffset(startTime) }
            track.setDelay(state.delay)
            state.external.append(track)
            state.selected = track
            selection.track = track
        }
    }

    /// The media is open: its streams join the list, external files are placed on its timeline,
    /// and the tracks asked for at the start are picked. Returns a warning for each that is not there.
    /// `captionsMayFollow`: the video may carry captions, which would be the next track; a
    /// `--sid` of its number waits for them, and the warning says so.
    func mediaDidOpen(embedded: [SubtitleTrack], startTime: Double, captionsMayFollow: Bool = false) -> [String] {
        state.withLock { state -> [String] in
            state.embedded = embedded
            state.captions = []
            state.startTime = startTime
            for track in embedded { track.setDelay(state.delay) }
            for track in state.external { track.setOffset(startTime) }
            let all = state.all
            let picks = all.map { Pick(isDefault: $0.description.isDefault, isSupported: $0.unsupportedReason == nil, language: $0.description.language) }
            var warnings: [String] = []
            for (choice, option) in [(state.choice, "--sid"), (state.secondaryChoice == .auto ? .off : state.secondaryChoice, "--secondary-sid")] {
                if captionsMayFollow, choice == .number(all.count + 1) {
                    warnings.append("\(option) \(all.count + 1): there is no such subtitle track (\(all.count) in all) yet: the video's closed captions, if it carries any")
                    continue
                }
                let (number, warning) = Self.pick(choice, among: picks, externalCount: state.external.count, languages: state.languages,
                                                  option: option)
                if let warning { warnings.append(warning) }
                let track = number.map { all[$0 - 1] }
                if option == "--sid" {
                    state.selected = track
                } else if let track, track === state.selected {
                    warnings.append("--secondary-sid \(number ?? 0): it is the subtitle track shown (--sid)")
                } else {
                    state.secondary = track
                }
            }
            selection.track = state.selected
            selection.secondaryTrack = state.secondary
            return warnings
        }
    }

    /// The video's captions, found: listed last, and shown when `--sid` or `--secondary-sid`
    /// asked for their number. Returns that number.
    func addCaptions(_ track: SubtitleTrack) -> Int {
        state.withLock { state -> Int in
            track.setDelay(state.delay)
            state.captions.append(track)
            let number = state.all.count
            if state.selected == nil, state.choice == .number(number) {
                state.selected = track
                selection.track = track
            } else if state.secondary == nil, state.secondaryChoice == .number(number) {
                state.secondary = track
                selection.secondaryTrack = track
            }
            return number
        }
    }

    /// Shows track `number` (from 1), or none for nil; `secondary`: as the secondary subtitles.
    /// A track shown already in the other place is refused, as mpv refuses it.
    func select(_ number: Int?, secondary: Bool = false) throws(MediaError) {
        let result = state.withLock { state -> Result<SubtitleTrack?, MediaError> in
            let all = state.all
            guard let number else {
                if secondary { state.secondary = nil } else { state.selected = nil }
                if secondary { selection.secondaryTrack = nil } else { selection.track = nil }
                return .success(nil)
            }
            guard all.indices.contains(number - 1) else {
                return .failure(MediaError(input: "subtitle track \(number)", reason: "there is none (\(all.count) in all)"))
            }
            if let reason = all[number - 1].unsupportedReason {
                return .failure(MediaError(input: "subtitle track \(number)", reason: reason))
            }
            if all[number - 1] === (secondary ? state.selected : state.secondary) {
                return .failure(MediaError(input: "subtitle track \(number)",
                                           reason: "it is shown already, as the \(secondary ? "primary" : "secondary") subtitles"))
            }
            if secondary { state.secondary = all[number - 1] } else { state.selected = all[number - 1] }
            // Under the same lock, so that what is drawn is what is recorded here.
            if secondary { selection.secondaryTrack = all[number - 1] } else { selection.track = all[number - 1] }
            return .success(all[number - 1])
        }
        _ = try result.get()
    }

    /// What `pick` needs to know of a track.
    struct Pick: Equatable {
        var isDefault: Bool
        var isSupported: Bool
        var language: String? = nil
    }

    /// The track to start with, as mpv picks it: the one asked for; else the last external file;
    /// else the first that can be shown in the first of `languages` that one is in (`--slang`);
    /// else the first stream the file marks as default that can be shown. Numbered from 1; with a
    /// warning, naming `option`, when the track asked for cannot be.
    static func pick(_ choice: SubtitleChoice, among tracks: [Pick], externalCount: Int, languages: [String] = [],
                     option: String = "--sid") -> (number: Int?, warning: String?) {
        switch choice {
        case .off:
            return (nil, nil)
        case .number(let number):
            guard tracks.indices.contains(number - 1) else {
                return (nil, "\(option) \(number): there is no such subtitle track (\(tracks.count) in all)")
            }
            guard tracks[number - 1].isSupported else {
                return (nil, "\(option) \(number): this track cannot be decoded")
            }
            return (number, nil)
        case .auto:
            if externalCount > 0 { return (tracks.count, nil) }
            if let index = TrackLanguage.choose(among: tracks.map { $0.isSupported ? $0.language : nil }, preferences: languages) {
                return (index + 1, nil)
            }
            return (tracks.firstIndex { $0.isDefault && $0.isSupported }.map { $0 + 1 }, nil)
        }
    }
}
