/// What MPRIS says of the player at one moment, in MPRIS's words and units.
public struct MPRISState: Equatable, Sendable {
    public enum PlaybackStatus: String, Sendable {
        case playing = "Playing"
        case paused = "Paused"
        case stopped = "Stopped"
    }

    public enum LoopStatus: String, Sendable {
        case none = "None"
        case track = "Track"
        case playlist = "Playlist"
    }

    /// The trackid of no track, as the specification names it.
    public static let noTrack = "/org/mpris/MediaPlayer2/TrackList/NoTrack"

    public var status = PlaybackStatus.stopped
    public var loop = LoopStatus.none
    public var rate = 1.0
    /// 0...1 (mpv's volume 0...100).
    public var volume = 1.0
    /// Microseconds.
    public var position: Int64 = 0
    /// Microseconds; nil when the file's length is not known.
    public var length: Int64?
    public var trackID = noTrack
    public var title: String?
    public var artists: [String] = []
    public var album: String?
    public var artURL: String?
    public var url: String?
    public var canGoNext = false
    public var canGoPrevious = false
    public var canSeek = false

    public init() {}

    /// A file is loaded: play and pause act on it.
    public var hasTrack: Bool { trackID != Self.noTrack }
}
