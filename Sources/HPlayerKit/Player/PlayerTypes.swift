/// The first of the player's two state machines: what playback is doing. The second is
/// `LoadState`.
public enum PlaybackState: String, Sendable {
    /// Neither play nor pause asked yet (the media may be opening meanwhile).
    case idle
    /// Playing, or about to: while `loadState` is `loading` the clock holds.
    case playing
    /// Paused by `pause` or a frame step.
    case paused
    /// A seek has been asked and has not landed yet; it lands in `playing` or `paused`.
    case seeking
    /// The end of the media, or an error: see the `finished` event. `play` (from the start) or
    /// a seek plays again, but for media that failed to open.
    case finished
    /// Closed: nothing more happens.
    case stopped
}

/// What a player tells its observers.
public enum PlayerEvent: Sendable, Equatable {
    /// The media is open: its streams are known and decoding has started.
    case prepared(MediaInfo)
    /// `playbackState` changed to this.
    case playbackStateChanged(PlaybackState)
    /// `loadState` changed to this.
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

/// How a `Player` plays, set once when it is made; `Player.init` takes it.
public struct PlayerOptions: Sendable {
    /// How the media is read and decoded: applied to the `FFmpegSource` the player makes, not
    /// to a source passed to `Player.init`.
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
    /// The subtitle track to show at the top beside it (`--secondary-sid`); `auto` is `off`.
    public var secondarySubtitleTrack = SubtitleChoice.off
    /// The languages to pick the subtitle track by when `subtitleTrack` is `auto` (`--slang`),
    /// in order of preference.
    public var subtitleLanguages: [String] = []
    /// Whether the subtitle track shown is drawn (`--sub-visibility`; `v` changes it).
    public var subtitlesVisible = true
    /// Seconds the subtitles come later by, earlier when negative (mpv's --sub-delay).
    public var subtitleDelay = 0.0
    /// The scale, position and text font subtitles are drawn with (mpv's --sub-scale, --sub-pos,
    /// --sub-font, --sub-font-size).
    public var subtitleStyle = SubtitleStyle()
    /// The character encoding of external text subtitle files (mpv's --sub-codepage); nil for UTF-8.
    public var subtitleCodepage: String?
    /// The gain the file's loudness tags ask for (mpv's --replaygain and its options).
    public var replayGain = ReplayGain()

    /// The defaults: keyframe seeks, timed, speed 1, no A-B loop, subtitles as `SubtitleChoice.auto` picks.
    public init() {}
}

/// A snapshot of a player, taken at one moment under its lock: cheap enough for a status line
/// several times a second (`MediaPlayer.status`).
public struct PlayerStatus: Sendable, Equatable {
    /// As `MediaPlayer.playbackState`.
    public var playbackState: PlaybackState
    /// As `MediaPlayer.loadState`.
    public var loadState: LoadState
    /// Seconds from the start of the media; during a seek, its target.
    public var position: Double
    /// Seconds; nil before the media is prepared and when unknown (a live stream).
    public var duration: Double?
    /// Master clock minus the pts of the frame presented last (positive: video behind).
    public var avDifference: Double
    /// Seconds of media read ahead of the position, in the queues.
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
    /// Video frames dropped late since the file opened (mpv's frame-drop-count).
    public var droppedFrames: Int
    /// Loop passes completed, as the `loopDone` event counts them.
    public var loopCount: Int
    /// Video frames decoded, and converted to a pixel format the output takes, since the latest seek.
    public var decodedVideoFrames = 0
    /// Of those, the frames converted (a frame in a format the output takes is not).
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
    /// As `MediaPlayer.volume`: 0...100.
    public var volume = 100
    /// As `MediaPlayer.isMuted`.
    public var isMuted = false
    /// As `MediaPlayer.isLooping`.
    public var isLooping = false
    /// As `MediaPlayer.abLoop`.
    public var abLoop = ABLoop()
    /// As `MediaPlayer.speed`.
    public var speed = 1.0
    /// As `MediaPlayer.mediaInfo`: nil before the media is prepared.
    public var mediaInfo: MediaInfo?
    /// The indices of the streams playing (MediaInfo's `StreamInfo.index`), once prepared.
    public var playingStreams: Set<Int> = []
}

/// A player: owns one source and the audio and video outputs. Thread-safe: call it from any
/// thread but an output's render or refresh callback. A request (a method, a setter) returns
/// once its effect is applied: after `seek` returns, nothing from before the seek is shown.
public protocol MediaPlayer: AnyObject, Sendable {
    /// What playback is doing now; each change is also a `playbackStateChanged` event.
    var playbackState: PlaybackState { get }
    /// Whether enough is buffered to play; each change is also a `loadStateChanged` event.
    var loadState: LoadState { get }
    /// Whether playback starts again from the beginning at the end (`--loop`); each pass is a
    /// `loopDone` event.
    var isLooping: Bool { get set }
    /// 0...100, mpv's scale (the gain is its cube, so steps sound even).
    var volume: Int { get set }
    /// Silences the sound without changing `volume`.
    var isMuted: Bool { get set }
    /// What the media holds, once prepared (the `prepared` event's); nil before.
    var mediaInfo: MediaInfo? { get }
    /// Everything a status line shows, read at one moment: cheap enough for several reads a
    /// second. Not from a real-time thread: it may read the disk cache's index.
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
    /// The number of the subtitle track shown at the top as well (mpv's `secondary-sid`); nil
    /// when none is.
    var secondarySubtitleTrack: Int? { get }
    /// Shows subtitle track `number` at the top as well, drawn as plain text, or none for nil;
    /// refused as `selectSubtitleTrack` refuses, and for the track shown as the primary one.
    func selectSecondarySubtitleTrack(_ number: Int?) throws(MediaError)
    /// Whether the subtitle track shown is drawn (mpv's `v`); the secondary one is drawn whatever
    /// this says.
    var subtitlesVisible: Bool { get set }
    /// Seconds the subtitles come later by, earlier when negative (mpv's `sub-delay`, `z`/`Z`).
    var subtitleDelay: Double { get set }
    /// The scale, position and text font subtitles are drawn with (mpv's `sub-scale`, `sub-pos`…).
    var subtitleStyle: SubtitleStyle { get set }
    /// Reads an external subtitle file (.srt, .vtt, .ass, …) and shows it; its times count from
    /// the start of the media.
    func addSubtitleFile(_ path: String) throws(MediaError)
    /// The indices of the streams playing (MediaInfo's `StreamInfo.index`), once prepared.
    var playingStreams: Set<Int> { get }
    /// The media pts of the frame on screen, once one has been presented: what a screenshot takes.
    var presentedMediaPts: Double? { get }
    /// What shows over a frame at media time `pts` now (none when subtitles are hidden).
    func shownSubtitle(atMediaPts pts: Double) -> ShownSubtitle?
    /// A new stream of every event from now on.
    func events() -> AsyncStream<PlayerEvent>
    /// Opens the media; `prepared` (or `finished` with an error) follows.
    func prepare()
    /// Plays from where playback stands; at `finished`, from the start again. Asked before the
    /// media is prepared, it plays once it is.
    func play()
    /// Pauses: the picture stays, the sound stops, the clock holds.
    func pause()
    /// Seeks to `position` seconds from the start; `mode` nil uses the player's default. Asked
    /// before the media is prepared, it is kept (the last one wins) and made as the media opens,
    /// so no frame from before it is shown.
    func seek(to position: Double, mode: SeekMode?)
    /// The same, to a start position: a fraction of the duration, or a time before its end.
    func seek(to start: StartPosition, mode: SeekMode?)
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
    /// Finishes the recording: its file is complete when this returns. Nothing when none is in progress.
    func stopRecording()
}
