/// The read loop's states.
public enum SourceState: String, Sendable {
    /// Before `open`.
    case idle
    /// The read thread opens the media.
    case opening
    /// Reading packets into the tracks.
    case reading
    /// Reading paused: the buffer is full.
    case paused
    /// A seek is being carried out.
    case seeking
    /// Every packet has been read (or reading failed); a seek reads again.
    case finished
    /// Closed, or the opening failed: the read thread has ended.
    case closed
}

/// Whether playback may run: the second of the player's two state machines (the first is
/// `PlaybackState`).
public enum LoadState: String, Sendable {
    /// Nothing is being loaded: before `prepare`, and after the media failed to open.
    case idle
    /// Filling the buffer (opening, after a seek, or after running dry): the clock holds.
    case loading
    /// Enough is buffered to play.
    case playable
}

/// How a seek lands; `PlayerOptions.seekMode` is the one used when a seek names none.
public enum SeekMode: String, Sendable {
    /// Frames before the target are decoded and dropped; the first shown is the first at or after it.
    case exact
    /// Lands on the key frame at or before the target.
    case keyframe
    /// Lands on the last frame before the target: a step back from the frame shown.
    case frameBefore
    /// Live: drops what is queued before the newest video key frame read (the target is only
    /// where playback is expected to land); nothing is read again.
    case liveEdge
}

/// How a source reads and decodes: `PlayerOptions.source`, or `FFmpegSource.init`'s.
public struct SourceOptions: Sendable {
    /// When reading pauses and resumes, and when a track is playable.
    public var buffering = BufferingOptions()
    /// How far network media is read ahead; local files keep `buffering`'s limits.
    public var readAhead = ReadAhead()
    /// The packets a track queues at first; with `buffering.growsPacketQueues` (network media)
    /// the queue grows to what the read-ahead allows.
    public var packetQueueCapacity = 256
    /// The most decoded pictures a video track queues; large pictures get fewer, within
    /// `videoFrameQueueBytes` (never under 4).
    public var videoFrameQueueCapacity = 8
    /// The bytes of decoded pictures a video track queues at most (see `videoFrameQueueCapacity`).
    public var videoFrameQueueBytes = 16 << 20
    /// The most decoded audio frames a track queues.
    public var audioFrameQueueCapacity = 16
    /// Reading starts again from the beginning at the end (`--loop`).
    public var isLooping = false
    /// How http(s) inputs are fetched.
    public var network = NetworkOptions()
    /// The kinds of stream to play; the others are not even decoded.
    public var mediaKinds: Set<MediaKind> = [.video, .audio]
    /// The video and audio streams to play, numbered from 1 among the streams of their kind in
    /// the file, as mpv's `--vid` and `--aid`; nil, or a number the file does not have (said in
    /// a warning), lets libavformat pick the best.
    public var videoTrack: Int?
    /// As `videoTrack`, for audio (`--aid`).
    public var audioTrack: Int?
    /// Played as fast as it decodes, with no clock (the player's `isUntimed`): no deadline, so
    /// the HLS bitrate policy sees its buffer as full.
    public var isUntimed = false
    /// The demuxer to open the input with, where libavformat is not to guess it: a capture
    /// device or a lavfi graph.
    public var inputFormat: InputFormat?
    /// mpv's `--container-fps-override`: the rate a video stream without timestamps (raw H.264
    /// or HEVC) is paced at, over the one its parameter sets give. Timestamps, where a container
    /// has them, win.
    public var frameRateOverride: Double?
    /// mpv's `--hwdec`: video decoded on the GPU where an API opens, in software otherwise and
    /// from the last key frame after a hardware failure.
    public var hardwareDecoding = HardwareDecoding.no
    /// mpv's `--vd-lavc-threads`: the video decoder's threads; 0 picks: the fewest that keep up
    /// in real-time playback (`playbackRate` set), one per core otherwise.
    public var videoDecoderThreads = 0
    /// The player's speed, for real-time playback to size its decoder threads to; nil plays
    /// as fast as decoding goes (a benchmark, an encode, `--untimed`).
    public var playbackRate: PlaybackRate?
    /// Live mode (a live protocol, `--live`, `--profile=low-latency`): no start-up buffering, a
    /// decoder thread and queues of a few frames, libavformat's `nobuffer`, and a latency that
    /// playback catches up to; nil plays as a file.
    public var live = LiveOptions()

    /// The defaults: both kinds of stream, the best of each, software decoding, live mode for
    /// live protocols only.
    public init() {}
}

/// What a source tells its owner, on the source's read thread.
public protocol SourceDelegate: AnyObject, Sendable {
    /// The media is open and its tracks made. Configure them for the outputs here: decoding starts
    /// when this returns. `subtitles` has a track per subtitle stream, in the file's order, which
    /// the source fills with cues as it reads. Throwing fails the open with that error.
    func source(_ source: MediaSource, didOpen info: MediaInfo, tracks: [Track], subtitles: [SubtitleTrack]) throws(MediaError)
    /// The media could not be opened (or `didOpen` threw): the read thread ends, and nothing
    /// more is reported.
    func source(_ source: MediaSource, didFailWith error: MediaError)
    /// `new` takes `old`'s place (a switch of audio stream): configure it as `old` was. Throwing
    /// keeps `old`.
    func source(_ source: MediaSource, didReplace old: Track, with new: Track) throws(MediaError)
    /// A buffering evaluation, with the load state it leads to, for the frames of `serial`.
    func source(_ source: MediaSource, didEvaluate report: BufferingReport, loadState: LoadState, serial: Int)
    /// The video's pictures carry closed captions, decoded into `track` from now on (called
    /// once, from the video track's decode thread).
    func source(_ source: MediaSource, didFindCaptions track: SubtitleTrack)
}

extension SourceDelegate {
    public func source(_ source: MediaSource, didFindCaptions track: SubtitleTrack) {}
}

/// Opens media, reads it on its own thread into its tracks, seeks, loops and decides buffering.
///
/// Its methods are called from any thread (the player's); what it reports goes to its
/// `SourceDelegate` on its read thread.
public protocol MediaSource: AnyObject, Sendable {
    /// The media it reads: a path or URL, as given, which errors name.
    var url: String { get }
    /// Where the read loop stands.
    var state: SourceState { get }
    /// Whether reading starts again from the beginning at the end of the media; set while
    /// playing, it applies at the next end.
    var isLooping: Bool { get set }
    /// Why reading stopped before the end when the input itself failed (the network gone past
    /// the retries, a part not cached with the network unreachable): what was read plays, and
    /// playback then ends with this error. Cleared by a seek, which reads again.
    var readFailure: MediaError? { get }
    /// The media time the disk cache holds of a network input, sorted; `duration` places a
    /// progressive file's bytes. From any thread but the read and real-time ones: it may read
    /// the cache's index.
    func cachedRanges(duration: Double?) -> [TimeRange]
    /// Starts the read thread, which opens the media and reports to `delegate`.
    func open(delegate: SourceDelegate)
    /// Plays the audio stream at `streamIndex` (the container's numbering) instead of the one
    /// playing; the seek asked next fills it from the position asked.
    func switchAudio(toStream streamIndex: Int)
    /// Asks for a seek to `position` seconds from the start; the last request wins. The frames
    /// at the new position carry `serial`, which is greater than any asked before.
    func seek(to position: Double, mode: SeekMode, serial: Int)
    /// The file the played streams are being recorded to; nil when none is (a write error
    /// stops a recording).
    var recordingPath: String? { get }
    /// Records the packets of the played streams, copied as they are read, to `path` (.mp4, .mov,
    /// .mkv or .ts), from the next video key frame until `stopRecording` or `close`; a recording
    /// in progress is finished first. With `waitsForPlayback`, what is read is held until
    /// `playbackDidStart` and the recording starts with the packets of the latest seek, so it
    /// begins where playback does. Throws when the file cannot be made (an unknown extension,
    /// a folder that cannot be written).
    func startRecording(to path: String, waitsForPlayback: Bool) throws(MediaError)
    /// The first frame of the latest seek (or of the opening) is playing.
    func playbackDidStart()
    /// Finishes the recording: its file is complete when this returns.
    func stopRecording()
    /// Stops and joins every thread and frees every FFmpeg object.
    func close()
}

extension MediaSource {
    /// None: a source not read through the disk cache.
    public func cachedRanges(duration: Double?) -> [TimeRange] { [] }
}
