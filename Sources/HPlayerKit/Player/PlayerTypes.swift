/// The first of the player's two state machines: what playback is doing.
public enum PlaybackState: String, Sendable {
    case idle, playing, paused, seeking, finished, stopped
}

/// What a player tells its observers.
public enum PlayerEvent: Sendable, Equatable {
    /// The media is open: its streams are known and decoding has started.
    case prepared(MediaInfo)
    case playbackStateChanged(PlaybackState)
    case loadStateChanged(LoadState)
    /// While loading: how far the refill is (0...100) and the seconds buffered.
    case bufferingProgress(percent: Int, buffered: Double)
    /// Playback ran dry while playing and waits for more to be read (mpv's paused-for-cache);
    /// not the loading of an opening or a seek.
    case bufferingStarted
    /// Enough is buffered again, or a seek or the end made the wait moot.
    case bufferingEnded
    /// Playback has begun: the first frame is presented (or, with no video, the sound has started).
    /// Once per opening; after a seek, `seekDone` says the same.
    case started(position: Double)
    /// The last seek asked for has landed: the first frame there is presented (or the audio is ready).
    case seekDone(position: Double)
    /// Playback went round to the start again; `count` passes completed so far.
    case loopDone(count: Int)
    /// Playback ended: at the end of the media, or with the error that stopped it.
    case finished(MediaError?)
    /// Live mode changed its catch-up: the speed on top of the one asked for (1: none).
    case liveCatchUp(speed: Double)
    /// Live mode, far behind: playback jumped to the newest key frame read, now at `position`.
    case liveJump(position: Double)
}

public struct PlayerOptions: Sendable {
    public var source = SourceOptions()
    /// The mode of seeks that name none.
    public var seekMode = SeekMode.keyframe
    /// Present every frame as soon as it is decoded, with no clock (`--untimed`).
    public var isUntimed = false
    /// Repeat from A to B (`--ab-loop-a`, `--ab-loop-b`).
    public var abLoop = ABLoop()
    /// The playback speed to start at (`--speed`), within `PlaybackSpeed.range`.
    public var speed = 1.0
    /// The subtitle track to show at the start (`--sid`).
    public var subtitleTrack = SubtitleChoice.auto

    public init() {}
}

/// A snapshot for a status line.
public struct PlayerStatus: Sendable, Equatable {
    public var playbackState: PlaybackState
    public var loadState: LoadState
    /// Seconds from the start of the media.
    public var position: Double
    public var duration: Double?
    /// Master clock minus the pts of the frame presented last (positive: video behind).
    public var avDifference: Double
    public var bufferedDuration: Double
    /// The payload bytes of the packets read ahead (mpv's demuxer-cache-state fw-bytes).
    public var bufferedBytes = 0
    /// Playback ran dry while playing and waits for more (mpv's paused-for-cache).
    public var isRebuffering = false
    /// Bytes per second the network delivers lately (mpv's cache-speed: 0 for local files); nil
    /// without a network monitor.
    public var downloadSpeed: Double? = nil
    /// Every packet has been read: what is buffered is all there is.
    public var isInputFinished = false
    /// The media time the disk cache holds of a network input, sorted (read again once a second).
    public var cachedRanges: [TimeRange] = []
    /// The HLS variant fetched now (mpv's hls-bitrate is its bandwidth); nil for other media.
    public var variant: VariantInfo?
    /// The size of the picture presented last (mpv's video-params w and h); nil before one.
    public var videoSize: PictureSize?
    /// While loading: how far the refill is, 0...100.
    public var bufferingProgress: Int
    public var droppedFrames: Int
    public var loopCount: Int
    /// Video frames decoded, and converted to a pixel format the output takes, since the latest seek.
    public var decodedVideoFrames = 0
    public var convertedVideoFrames = 0
    /// Decoding errors since the file opened: packets the decoders refused, and pictures they
    /// gave with damage concealed (a lost datagram, a corrupt NAL unit).
    public var decodeErrors = 0
    /// Live mode: seconds held beyond the newest data received (the latency the player adds);
    /// nil when not live.
    public var liveLatency: Double?
    /// Live mode: nothing has come for a while (or the queues ran dry): the last picture stays.
    public var isWaitingForData = false
    // The settings and the media, read with the rest under one lock: a snapshot of them all
    // (the IPC's properties) is of one moment, never torn by a change between two reads.
    public var volume = 100
    public var isMuted = false
    public var isLooping = false
    public var abLoop = ABLoop()
    public var speed = 1.0
    public var mediaInfo: MediaInfo?
    /// The indices of the streams playing (MediaInfo's `StreamInfo.index`), once prepared.
    public var playingStreams: Set<Int> = []
}

/// A player: owns one source and the audio and video outputs.
public protocol MediaPlayer: AnyObject, Sendable {
    var playbackState: PlaybackState { get }
    var loadState: LoadState { get }
    var isLooping: Bool { get set }
    /// 0...100, mpv's scale (the gain is its cube, so steps sound even).
    var volume: Int { get set }
    var isMuted: Bool { get set }
    var mediaInfo: MediaInfo? { get }
    var status: PlayerStatus { get }
    /// Playback repeats from A to B while both are set, with exact seeks; each pass is a `loopDone`.
    var abLoop: ABLoop { get set }
    /// Media seconds per second, within `PlaybackSpeed.range` (a value outside is clamped): the
    /// sound is stretched with its pitch kept and the picture follows it.
    var speed: Double { get set }
    /// Plays the Nth audio stream of the file (numbered from 1, as `--aid`) instead of the one
    /// playing, picking up where playback stands.
    func selectAudioTrack(_ number: Int) throws(MediaError)
    /// The subtitle tracks, numbered from 1 as `--sid` counts them: the file's subtitle streams
    /// (once prepared), then the external files added.
    var subtitleTracks: [SubtitleTrack] { get }
    /// The number of the subtitle track shown; nil when none is.
    var subtitleTrack: Int? { get }
    /// Shows subtitle track `number` (from 1), or none for nil; a track that is not there, or
    /// that cannot be shown (bitmap subtitles), is refused.
    func selectSubtitleTrack(_ number: Int?) throws(MediaError)
    /// Whether the subtitle track shown is drawn (mpv's `v`).
    var subtitlesVisible: Bool { get set }
    /// Reads an external subtitle file (.srt, .vtt, .ass, …) and shows it; its times count from
    /// the start of the media.
    func addSubtitleFile(_ path: String) throws(MediaError)
    /// The indices of the streams playing (MediaInfo's `StreamInfo.index`), once prepared.
    var playingStreams: Set<Int> { get }
    /// The media pts of the frame on screen, once one has been presented: what a screenshot takes.
    var presentedMediaPts: Double? { get }
    /// A new stream of every event from now on.
    func events() -> AsyncStream<PlayerEvent>
    /// Opens the media; `prepared` (or `finished` with an error) follows.
    func prepare()
    func play()
    func pause()
    /// Seeks to `position` seconds from the start; `mode` nil uses the player's default.
    func seek(to position: Double, mode: SeekMode?)
    /// Pauses and shows the next frame (forward), or the frame before the one shown, as mpv's
    /// frame-step and frame-back-step. Playing again picks the sound up at the frame shown.
    func stepFrame(forward: Bool)
    /// Stops, joins every thread and frees everything.
    func close()
    /// The file the played streams are being recorded to; nil when none is.
    var recordingPath: String? { get }
    /// Records the played streams to `path` (.mp4, .mov, .mkv or .ts), packets copied as they
    /// are, until `stopRecording` or `close`; a recording in progress is finished first.
    func startRecording(to path: String) throws(MediaError)
    func stopRecording()
}
