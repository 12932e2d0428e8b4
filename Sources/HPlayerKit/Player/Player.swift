import Synchronization
/// The player: owns one source and the audio and video outputs, and plays them by the decisions
/// of its PlaybackMachine (PlaybackMachine.swift).
///
/// Its methods may be called from any thread; the source reports on its read thread
/// (PlayerSourceEvents.swift), the renderers through the RenderNotifier's thread. Each becomes an
/// event the machine handles under `lock`, which is held for nothing else; the effects are applied
/// afterwards, outside it and in the order they were decided (PlayerEffects.swift).
public final class Player: MediaPlayer, @unchecked Sendable {
    /// The media played: a path or URL, as given to `init`.
    public let url: String
    let options: PlayerOptions
    let source: MediaSource
    let audioOutput: AudioOutput
    let videoOutput: VideoOutput
    let clock = MasterClock()
    let subtitles: SubtitleTracks
    private(set) var notifier: RenderNotifier?
    let observers = Locked<[AsyncStream<PlayerEvent>.Continuation]>([])

    /// Guards everything below; held briefly, and never across a call into another layer.
    let lock = ConditionLock()
    var machine: PlaybackMachine
    /// Whether playback keeps to a live latency (the machine's `live`, kept here too so that the
    /// read thread's reports need no lock to ask): from the start for a live protocol, from the
    /// open for a live HLS playlist.
    let followsLiveEdge = Atomic<Bool>(false)
    /// Live: when the source last reported (it does at each packet), as a bit pattern: a silence
    /// of the sender shows as reports that stop, the read thread waiting inside libavformat.
    let lastLiveReport = Atomic<UInt64>(0)
    /// Effects decided and not yet applied, oldest first.
    var pendingEffects: [PlaybackMachine.Effect] = []
    /// A thread is applying effects (or opening the outputs): the others leave theirs to it.
    var isApplying = false
    /// Effects decided and applied since the start: a request waits for its own to be applied.
    var decidedEffectCount = 0
    var appliedEffectCount = 0
    /// `close` has been called: a second call returns at once.
    var isClosing = false
    // Made when the media opens (PlayerSourceEvents.swift).
    var audioTrack: Track?
    var videoTrack: Track?
    var audioRenderer: AudioRenderer?
    var audioTempo: AudioTempoStage?
    var videoRenderer: VideoRenderer?
    /// The speed the video decoder sizes its threads to.
    let playbackRate: PlaybackRate

    /// - Parameter source: the source to play from; an FFmpegSource for `url` when nil.
    public init(url: String, options: PlayerOptions = PlayerOptions(), audioOutput: AudioOutput, videoOutput: VideoOutput,
                source: MediaSource? = nil) {
        self.url = url
        self.options = options
        self.audioOutput = audioOutput
        self.videoOutput = videoOutput
        playbackRate = PlaybackRate(options.speed)
        var sourceOptions = options.source
        sourceOptions.isUntimed = options.isUntimed
        sourceOptions.playbackRate = options.isUntimed ? nil : playbackRate
        if options.isUntimed {
            // As fast as decoding goes: a read-ahead in seconds would be used up between two
            // looks at it. The packet queues' capacity bounds it, as for a benchmark.
            sourceOptions.buffering.maximumBufferedDuration = .infinity
            sourceOptions.buffering.maximumBufferedBytes = .max
        }
        self.source = source ?? FFmpegSource(url: url, options: sourceOptions)
        let liveLatencyTarget = Self.liveLatencyTarget(url: url, options: options.source)
        machine = PlaybackMachine(configuration: .init(seekMode: options.seekMode, isUntimed: options.isUntimed,
                                                       liveLatencyTarget: liveLatencyTarget,
                                                       followsLiveHLS: options.source.live.mode != .never,
                                                       replayGain: options.replayGain),
                                  isLooping: options.source.isLooping, abLoop: options.abLoop, speed: options.speed)
        followsLiveEdge.store(machine.live != nil, ordering: .relaxed)
        subtitles = SubtitleTracks(choice: options.subtitleTrack, secondary: options.secondarySubtitleTrack,
                                   languages: options.subtitleLanguages, delay: options.subtitleDelay)
        subtitles.selection.style = options.subtitleStyle
        subtitles.selection.isVisible = options.subtitlesVisible
        notifier = RenderNotifier { [weak self] note, serial in self?.handle(note, serial: serial) }
    }

    deinit { close() }

    // MARK: MediaPlayer

    public var playbackState: PlaybackState { lock.withLock { machine.playback } }
    public var loadState: LoadState { lock.withLock { machine.load } }
    public var mediaInfo: MediaInfo? { lock.withLock { machine.info } }

    public var isLooping: Bool {
        get { source.isLooping }
        set {
            source.isLooping = newValue
            request(.setLooping(newValue))
        }
    }

    public var volume: Int {
        get { lock.withLock { machine.volume } }
        set { request(.setVolume(newValue)) }
    }

    public var isMuted: Bool {
        get { lock.withLock { machine.isMuted } }
        set { request(.setMuted(newValue)) }
    }

    public var abLoop: ABLoop {
        get { lock.withLock { machine.abLoop } }
        set { request(.setABLoop(newValue)) }
    }

    public var speed: Double {
        get { lock.withLock { machine.speed } }
        set { request(.setSpeed(newValue)) }
    }

    public var playingStreams: Set<Int> { Self.streamIndices(of: lock.withLock { [audioTrack, videoTrack] }) }

    public var subtitleTracks: [SubtitleTrack] { subtitles.all }
    /// What shows over a frame at media time `pts` now (none when subtitles are hidden).
    public func shownSubtitle(atMediaPts pts: Double) -> ShownSubtitle? { subtitles.selection.shown(at: pts) }
    public var subtitleTrack: Int? { subtitles.selectedNumber }

    public func selectSubtitleTrack(_ number: Int?) throws(MediaError) {
        try subtitles.select(number)
        videoOutput.requestRefresh()  // a paused picture shows the change too
    }

    public var secondarySubtitleTrack: Int? { subtitles.secondaryNumber }

    public func selectSecondarySubtitleTrack(_ number: Int?) throws(MediaError) {
        try subtitles.select(number, secondary: true)
        videoOutput.requestRefresh()
    }

    public var subtitlesVisible: Bool {
        get { subtitles.selection.isVisible }
        set {
            subtitles.selection.isVisible = newValue
            videoOutput.requestRefresh()
        }
    }

    public var subtitleDelay: Double {
        get { subtitles.delay }
        set {
            subtitles.delay = newValue
            videoOutput.requestRefresh()
        }
    }

    /// The scale, position and text font subtitles are drawn with.
    public var subtitleStyle: SubtitleStyle {
        get { subtitles.selection.style }
        set {
            subtitles.selection.style = newValue
            videoOutput.requestRefresh()
        }
    }

    public func addSubtitleFile(_ path: String) throws(MediaError) {
        let track = try SubtitleFile.load(path: path, codepage: options.subtitleCodepage)
        subtitles.addExternal(track)
        videoOutput.requestRefresh()
    }

    public var presentedMediaPts: Double? { lock.withLock { videoRenderer }?.lastPresentedMediaPts }

    public var status: PlayerStatus {
        let now = MonotonicClock.now()
        let clockTime = clock.mediaTime(at: now)
        let (machine, videoRenderer, videoTrack, audioTrack) = lock.withLock { (self.machine, self.videoRenderer, self.videoTrack, self.audioTrack) }
        var position = machine.seekTarget ?? clockTime.map { $0 - machine.startTime } ?? machine.restingPosition
        if let duration = machine.info?.duration { position = min(position, duration) }
        var status = PlayerStatus(
            playbackState: machine.playback, loadState: machine.load, position: max(0, position), duration: machine.info?.duration,
            avDifference: Double(videoRenderer?.avDifferenceMicroseconds.load(ordering: .relaxed) ?? 0) / 1_000_000,
            bufferedDuration: machine.bufferedDuration, bufferedBytes: machine.bufferedBytes,
            isRebuffering: machine.isRebuffering, downloadSpeed: options.source.network.monitor?.bytesPerSecond,
            isInputFinished: machine.isInputFinished, cachedRanges: source.cachedRanges(duration: machine.info?.duration),
            variant: options.source.network.monitor?.playingVariant, videoSize: videoRenderer?.lastPresentedSize,
            bufferingProgress: machine.load == .loading ? max(0, machine.lastProgress) : 100,
            droppedFrames: videoRenderer?.droppedFrames.load(ordering: .relaxed) ?? 0,
            loopCount: machine.loopCount,
            decodedVideoFrames: videoTrack?.frameCounts.decoded ?? 0,
            convertedVideoFrames: videoTrack?.frameCounts.converted ?? 0,
            decodeErrors: [videoTrack, audioTrack].reduce(0) { $0 + ($1?.decodeErrorCount ?? 0) },
            liveLatency: machine.live != nil ? machine.liveLatency ?? 0 : nil,
            isWaitingForData: machine.live.map { live in
                machine.playback == .playing && (machine.load == .loading
                    || (!live.isSegmented && now - Double(bitPattern: lastLiveReport.load(ordering: .relaxed)) > LiveInput.starvationGrace))
            } ?? false)
        status.volume = machine.volume
        status.isMuted = machine.isMuted
        status.isLooping = machine.isLooping
        status.abLoop = machine.abLoop
        status.speed = machine.speed
        status.mediaInfo = machine.info
        status.playingStreams = Self.streamIndices(of: [audioTrack, videoTrack])
        return status
    }

    private static func streamIndices(of tracks: [Track?]) -> Set<Int> {
        Set(tracks.compactMap { $0.map { Int($0.streamIndex) } })
    }

    /// Packet and frame wrappers made so far: flat once the queues have filled (no allocation per frame).
    package var pooledObjectCount: Int {
        lock.withLock { [audioTrack, videoTrack] }.compactMap { $0 }.reduce(0) { $0 + $1.pooledObjectCount }
    }

    /// The audio callbacks made so far and the most locks one of them took: one at most, the
    /// tempo stage's hand-off. Counted in debug builds only (nil otherwise, and with no sound).
    package var audioCallbackLocks: (callbacks: Int, mostLocks: Int)? { lock.withLock { audioRenderer }?.lockProbe.counts }

    /// The player's events from now on; a closed player's stream ends at once, so a caller that
    /// asks after a close (a file stopped before it began) is not left waiting.
    public func events() -> AsyncStream<PlayerEvent> {
        let (stream, continuation) = AsyncStream<PlayerEvent>.makeStream()
        let isOpen = observers.withLock { observers in
            let isOpen = lock.withLock { machine.lifecycle != .closed }
            if isOpen { observers.append(continuation) }
            return isOpen
        }
        if !isOpen { continuation.finish() }
        return stream
    }

    public func prepare() { request(.prepare) }

    public func play() { request(.play(clock: clockPosition())) }

    public func pause() { request(.pause) }

    public func seek(to position: Double, mode: SeekMode? = nil) { request(.seek(to: position, mode: mode)) }

    public func seek(to start: StartPosition, mode: SeekMode? = nil) { request(.startAt(start, mode: mode)) }

    public func selectAudioTrack(_ number: Int) throws(MediaError) {
        let (info, playing, isClosed) = lock.withLock { (machine.info, audioTrack?.streamIndex, machine.lifecycle == .closed) }
        guard let info, let playing, !isClosed else { throw MediaError(input: url, reason: "no audio playing") }
        let streams = info.streams(of: .audio)
        guard streams.indices.contains(number - 1) else {
            throw MediaError(input: url, reason: "no audio track \(number) (the file has \(streams.count))")
        }
        guard streams[number - 1].index != Int(playing) else { return }
        request(.selectAudio(stream: streams[number - 1].index, clock: clockPosition()))
    }

    public func stepFrame(forward: Bool) {
        let shown = lock.withLock { videoRenderer }?.lastPresentedMediaPts
        request(.step(forward: forward, shown: shown))
    }

    /// Seconds from the start where the clock stands, nil while it has no time.
    private func clockPosition() -> Double? {
        let time = clock.mediaTime(at: MonotonicClock.now())
        return time.map { $0 - lock.withLock { machine.startTime } }
    }

    // MARK: Renderer notes (the notifier's thread)

    private func handle(_ note: RenderNotifier.Note, serial: Int) {
        let firstPicture = lock.withLock { videoRenderer }?.firstPts(serial: serial)
        perform(.rendered(note, serial: serial, firstPicture: firstPicture))
    }

    /// Live mode's latency target, where playback catches up to one: a live input that arrives
    /// in real time.
    private static func liveLatencyTarget(url: String, options: SourceOptions) -> Double? {
        options.live.applies(to: url) && LiveInput.arrivesInRealTime(url) ? options.live.latencyTarget : nil
    }
}
