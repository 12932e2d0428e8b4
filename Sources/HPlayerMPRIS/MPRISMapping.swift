import HPlayerIPC
import HPlayerKit

/// What MPRIS asks of the player: its methods, and the properties it lets a client set.
public enum MPRISAction: Equatable, Sendable {
    case playPause, play, pause, stop, next, previous
    /// Microseconds, from the position.
    case seek(offset: Int64)
    /// Microseconds, in track `trackID`.
    case setPosition(trackID: String, position: Int64)
    case openURI(String)
    case quit
    case setLoop(MPRISState.LoopStatus)
    case setRate(Double)
    case setVolume(Double)
}

/// The pure part of MPRIS, tested by table: mpv's properties (read over the CommandRunner) to
/// an MPRISState, an MPRISState to MPRIS's properties, two states to the signals due, and
/// MPRIS's methods to mpv's commands.
public enum MPRISMapping {
    /// The mpv properties an MPRISState is made of. `seekable`, `loop-playlist`, `metadata`
    /// and `media-title` may be missing (property not found): the state does without them.
    public static let propertyNames = ["pause", "eof-reached", "time-pos", "duration", "speed", "volume", "loop-file",
                                       "loop-playlist", "playlist-pos", "playlist-count", "playlist", "media-title",
                                       "metadata", "seekable"]

    /// `properties`: the values read of `propertyNames`, those that could be read; none when
    /// no file is playing. `workingDirectory` makes a relative path a file:// URL.
    public static func state(from properties: [String: JSONValue], workingDirectory: String) -> MPRISState {
        var state = MPRISState()
        state.rate = properties["speed"]?.number ?? 1
        state.volume = (properties["volume"]?.number).map { min(1, max(0, $0 / 100)) } ?? 1
        let position = properties["playlist-pos"]?.number.flatMap(Int.init(exactly:)) ?? -1
        let count = properties["playlist-count"]?.number.flatMap(Int.init(exactly:)) ?? 0
        let loopsPlaylist = isOn(properties["loop-playlist"])
        state.loop = isOn(properties["loop-file"]) ? .track : loopsPlaylist ? .playlist : .none
        state.canGoNext = position >= 0 && (position < count - 1 || (loopsPlaylist && count > 1))
        state.canGoPrevious = position > 0 || (loopsPlaylist && count > 1)
        // time-pos reads only while a file plays: without it, there is no track.
        guard let seconds = properties["time-pos"]?.number else { return state }
        state.status = properties["eof-reached"] == .bool(true) ? .stopped : properties["pause"] == .bool(true) ? .paused : .playing
        state.position = microseconds(seconds)
        state.length = properties["duration"]?.number.map(microseconds)
        state.canSeek = properties["seekable"]?.bool ?? (state.length != nil)
        let entry = properties["playlist"]?.array?.first { $0["current"] == .bool(true) }
        let id = entry?["id"]?.number.flatMap(Int.init(exactly:))
        state.trackID = id.map { "/org/hplayer/track/\($0)" } ?? MPRISState.noTrack
        let path = entry?["filename"]?.string
        state.url = path.map { FileURL.url(of: $0, workingDirectory: workingDirectory) }
        let tags = properties["metadata"]
        state.title = tag("title", in: tags) ?? properties["media-title"]?.string ?? path.map { MediaMetadata.fileName(of: $0) }
        state.artists = tag("artist", in: tags).map { [$0] } ?? []
        state.album = tag("album", in: tags)
        return state
    }

    /// org.mpris.MediaPlayer2's properties, which do not change.
    public static let rootProperties: [String: DBusValue] = [
        "CanQuit": .bool(true), "CanRaise": .bool(false), "HasTrackList": .bool(false),
        "Identity": .string("HPlayer"), "DesktopEntry": .string("hplayer"),
        "SupportedUriSchemes": .strings(["file", "http", "https"]),
        "SupportedMimeTypes": .strings(["application/vnd.apple.mpegurl", "application/x-mpegurl", "audio/aac", "audio/flac",
                                        "audio/mp4", "audio/mpeg", "audio/ogg", "audio/wav", "audio/webm", "video/mp2t",
                                        "video/mp4", "video/quicktime", "video/webm", "video/x-matroska"]),
    ]

    /// org.mpris.MediaPlayer2.Player's properties for `state`.
    public static func playerProperties(_ state: MPRISState) -> [String: DBusValue] {
        [
            "PlaybackStatus": .string(state.status.rawValue),
            "LoopStatus": .string(state.loop.rawValue),
            "Rate": .double(state.rate),
            "Metadata": .dictionary(metadata(state)),
            "Volume": .double(state.volume),
            "Position": .int64(state.position),
            "MinimumRate": .double(PlaybackSpeed.range.lowerBound),
            "MaximumRate": .double(PlaybackSpeed.range.upperBound),
            "CanGoNext": .bool(state.canGoNext),
            "CanGoPrevious": .bool(state.canGoPrevious),
            "CanPlay": .bool(state.hasTrack),
            "CanPause": .bool(state.hasTrack),
            "CanSeek": .bool(state.canSeek),
            "CanControl": .bool(true),
        ]
    }

    /// The Player properties whose values differ, for PropertiesChanged. Position is left out:
    /// the specification has it change without a signal (Seeked tells a jump).
    public static func changedProperties(from old: MPRISState, to new: MPRISState) -> [String: DBusValue] {
        let before = playerProperties(old)
        return playerProperties(new).filter { name, value in name != "Position" && before[name] != value }
    }

    /// Whether the position jumped from `old` to `new`, `elapsed` seconds later: further than
    /// playing at the rate would take it, by more than polling's jitter. A new track starts
    /// where it starts, and is no seek.
    public static func isSeek(from old: MPRISState, to new: MPRISState, elapsed: Double) -> Bool {
        guard old.trackID == new.trackID, new.hasTrack else { return false }
        let played = old.status == .playing ? elapsed * old.rate : 0
        let expected = Double(old.position) + played * 1_000_000
        return abs(Double(new.position) - expected) > seekTolerance
    }

    /// Microseconds of drift between two polls that are not a seek.
    static let seekTolerance = 500_000.0

    /// mpv's commands for `action`, as the player stands in `state`; none when the action does
    /// not apply (the specification's no-ops).
    public static func commands(for action: MPRISAction, in state: MPRISState) -> [IPCCommand] {
        switch action {
        case .playPause: return state.hasTrack ? [.cycle("pause", up: true)] : []
        case .play: return state.hasTrack ? [.set("pause", .bool(false))] : []
        case .pause: return state.hasTrack ? [.set("pause", .bool(true))] : []
        // No file to play: the playlist ends (mpv's stop), and without --idle so does the program.
        case .stop: return [.playlist(.play(index: -1))]
        case .next: return state.canGoNext ? [.playlist(.next(force: false))] : []
        case .previous: return state.canGoPrevious ? [.playlist(.previous(force: false))] : []
        case .seek(let offset):
            guard state.hasTrack, state.canSeek else { return [] }
            // Past the end is the next track, as the specification has it.
            // Compared without the sum, which a client's offset could overflow.
            if let length = state.length, offset > length - state.position {
                return state.canGoNext ? [.playlist(.next(force: false))] : []
            }
            return [.seek(target: Double(offset) / 1_000_000, reference: .relative, precision: nil)]
        case .setPosition(let trackID, let position):
            // A stale trackid (the track changed meanwhile) or a position outside the track: ignored.
            guard state.canSeek, trackID == state.trackID, position >= 0, position <= state.length ?? .max else { return [] }
            // Exact, as mpv's absolute seeks are by default: a slider is dragged to a time, not a key frame.
            return [.seek(target: Double(position) / 1_000_000, reference: .absolute, precision: .exact)]
        case .openURI(let uri):
            return [.loadFile(url: FileURL.path(ofURI: uri), mode: .replace)]
        case .quit:
            return [.quit(code: 0)]
        case .setLoop(.none):
            return [.set("loop-file", .bool(false)), .set("loop-playlist", .string("no"))]
        case .setLoop(.track):
            return [.set("loop-file", .string("inf"))]
        case .setLoop(.playlist):
            return [.set("loop-file", .bool(false)), .set("loop-playlist", .string("inf"))]
        case .setRate(let rate):
            // 0 is to act as Pause; other rates are kept in what the player takes.
            guard rate != 0 else { return state.hasTrack ? [.set("pause", .bool(true))] : [] }
            return [.set("speed", .number(min(PlaybackSpeed.range.upperBound, max(PlaybackSpeed.range.lowerBound, rate))))]
        case .setVolume(let volume):
            return [.set("volume", .number((min(1, max(0, volume)) * 100).rounded()))]
        }
    }

    /// Why a Properties.Set is refused.
    public enum SetRefusal: Error, Equatable, Sendable {
        case unknownProperty, readOnly, invalidValue
    }

    /// The action of setting Player property `name` to `value`.
    public static func action(setting name: String, to value: DBusValue) -> Result<MPRISAction, SetRefusal> {
        switch (name, value.unwrapped) {
        case ("LoopStatus", .string(let text)):
            return MPRISState.LoopStatus(rawValue: text).map { .success(.setLoop($0)) } ?? .failure(.invalidValue)
        case ("Rate", .double(let rate)) where rate.isFinite:
            return .success(.setRate(rate))
        case ("Volume", .double(let volume)) where volume.isFinite:
            return .success(.setVolume(volume))
        case ("LoopStatus", _), ("Rate", _), ("Volume", _):
            return .failure(.invalidValue)
        case _ where playerProperties(MPRISState())[name] != nil:
            return .failure(.readOnly)
        default:
            return .failure(.unknownProperty)
        }
    }

    private static func metadata(_ state: MPRISState) -> [String: DBusValue] {
        var fields: [String: DBusValue] = ["mpris:trackid": .objectPath(state.trackID)]
        if let length = state.length { fields["mpris:length"] = .int64(length) }
        if let title = state.title { fields["xesam:title"] = .string(title) }
        if !state.artists.isEmpty { fields["xesam:artist"] = .strings(state.artists) }
        if let album = state.album { fields["xesam:album"] = .string(album) }
        if let artURL = state.artURL { fields["mpris:artUrl"] = .string(artURL) }
        if let url = state.url { fields["xesam:url"] = .string(url) }
        return fields
    }

    private static func microseconds(_ seconds: Double) -> Int64 {
        Int64(saturating: seconds * 1_000_000)
    }

    /// mpv reads loop-file and loop-playlist back as "inf", a count, or false.
    private static func isOn(_ value: JSONValue?) -> Bool {
        switch value {
        case .bool(true)?, .string("inf")?, .string("yes")?, .string("force")?: return true
        case .number(let count)?: return count > 1
        default: return false
        }
    }

    /// A tag of mpv's metadata, whatever the case of its key (files write TITLE, Title, title).
    private static func tag(_ name: String, in tags: JSONValue?) -> String? {
        guard case .object(let members)? = tags else { return nil }
        return members.first { $0.key.lowercased() == name }?.value.string
    }


}
