/// The player: owns one source and the audio and video outputs, and runs two state machines,
/// playback (idle, playing, paused, seeking, finished, stopped) and load (idle, loading,
/// playable). The render loops run only while playing and playable.
///
/// Its methods may be called from any thread. The source reports on its read thread, the
/// renderers through the RenderNotifier's thread; all state changes happen under one lock.
public final class Player: MediaPlayer, SourceDelegate, @unchecked Sendable {
    public let url: String
    private let options: PlayerOptions
    let source: MediaSource
    private let audioOutput: AudioOutput
    private let videoOutput: VideoOutput
    private let clock = MasterClock()
    private let subtitles: SubtitleTracks
    private var notifier: RenderNotifier?

    private let lock = ConditionLock()
    private var playback = PlaybackState.idle
    private var load = LoadState.idle
    private var isPrepareCalled = false
    /// What the user last asked for: play (true) or pause.
    private var wantsToPlay = false
    private var info: MediaInfo?
    private var audioTrack: Track?
    private var videoTrack: Track?
    private var audioRenderer: AudioRenderer?
    private var audioTempo: AudioTempoStage?
    private var videoRenderer: VideoRenderer?
    private var isRendering = false
    /// The serial of the latest seek: only its frames and reports count.
    private var serial = 0
    /// The target of a seek that has not landed yet.
    private var seekTarget: Double?
    private var timelineSerial = -1
    /// The serial whose first frame has been presented.
    private var presentedSerial = -1
    /// Whether `started` (or a seek's `seekDone`) has been told since opening.
    private var hasStarted = false
    private var hasSeeked = false
    /// Where playback stands while the clock has no time (after a seek, before playing).
    private var restingPosition = 0.0
    private var audioEnded = false
    private var videoEnded = false
    private var loopCount = 0
    private var bufferedDuration = 0.0
    private var lastProgress = -1
    private var observers: [AsyncStream<PlayerEvent>.Continuation] = []
    private var volumeValue = 100
    private var muted = false
    private var abLoopValue: ABLoop
    private var speedValue: Double
    /// A forward frame step moved the picture on while the sound stood still: playing again
    /// seeks to the frame shown, so both start there.
    private var isStepped = false
    private var isClosed = false

    /// - Parameter source: the source to play from; an FFmpegSource for `url` when nil.
    public init(url: String, options: PlayerOptions = PlayerOptions(), audioOutput: AudioOutput, videoOutput: VideoOutput,
                source: MediaSource? = nil) {
        self.url = url
        self.options = options
        self.audioOutput = audioOutput
        self.videoOutput = videoOutput
        self.source = source ?? FFmpegSource(url: url, options: options.source)
        abLoopValue = options.abLoop
        speedValue = PlaybackSpeed.clamped(options.speed)
        subtitles = SubtitleTracks(choice: options.subtitleTrack)
        notifier = RenderNotifier { [weak self] note, serial in self?.handle(note, serial: serial) }
    }

    deinit { close() }

    // MARK: MediaPlayer

    public var playbackState: PlaybackState { lock.withLock { playback } }
    public var loadState: LoadState { lock.withLock { load } }
    public var mediaInfo: MediaInfo? { lock.withLock { info } }

    public var isLooping: Bool {
        get { source.isLooping }
        set { source.isLooping = newValue }
    }

    public var volume: Int {
        get { lock.withLock { volumeValue } }
        set { lock.withLock {
            volumeValue = min(100, max(0, newValue))
            applyGain()
        } }
    }

    public var isMuted: Bool {
        get { lock.withLock { muted } }
        set { lock.withLock {
            muted = newValue
            applyGain()
        } }
    }

    public var abLoop: ABLoop {
        get { lock.withLock { abLoopValue } }
        set { lock.withLock {
            abLoopValue = newValue
            applyLoopEnd()
        } }
    }

    public var speed: Double {
        get { lock.withLock { speedValue } }
        set { lock.withLock {
            speedValue = PlaybackSpeed.clamped(newValue)
            audioTempo?.setTempo(speedValue)
            // With sound, the audio renderer moves the clock to the new rate as it is heard.
            if audioRenderer == nil || audioEnded { clock.setRate(speedValue, at: MonotonicClock.now()) }
        } }
    }

    public var playingStreams: Set<Int> {
        lock.withLock { Set([audioTrack, videoTrack].compactMap { $0.map { Int($0.streamIndex) } }) }
    }

    public var subtitleTracks: [SubtitleTrack] { subtitles.all }
    public var subtitleTrack: Int? { subtitles.selectedNumber }

    public func selectSubtitleTrack(_ number: Int?) throws(MediaError) {
        try subtitles.select(number)
        videoOutput.requestRefresh()  // a paused picture shows the change too
    }

    public var subtitlesVisible: Bool {
        get { subtitles.selection.isVisible }
        set {
            subtitles.selection.isVisible = newValue
            videoOutput.requestRefresh()
        }
    }

    public func addSubtitleFile(_ path: String) throws(MediaError) {
        let track = try SubtitleFile.load(path: path)
        // Under the lock, so the opening places it on the media's timeline whether it comes first or not.
        lock.withLock { subtitles.addExternal(track, startTime: info?.startTime) }
        videoOutput.requestRefresh()
    }

    public var presentedMediaPts: Double? { lock.withLock { videoRenderer }?.lastPresentedMediaPts }

    public var status: PlayerStatus {
        lock.withLock {
            let duration = info?.duration
            var position = seekTarget ?? clock.mediaTime(at: MonotonicClock.now()).map { $0 - (info?.startTime ?? 0) } ?? restingPosition
            if let duration { position = min(position, duration) }
            return PlayerStatus(
                playbackState: playback, loadState: load, position: max(0, position), duration: duration,
                avDifference: Double(videoRenderer?.avDifferenceMicroseconds.load(ordering: .relaxed) ?? 0) / 1_000_000,
                bufferedDuration: bufferedDuration,
                bufferingProgress: load == .loading ? max(0, lastProgress) : 100,
                droppedFrames: videoRenderer?.droppedFrames.load(ordering: .relaxed) ?? 0,
                loopCount: loopCount,
                decodedVideoFrames: videoTrack?.frameCounts.decoded ?? 0,
                convertedVideoFrames: videoTrack?.frameCounts.converted ?? 0)
        }
    }

    /// Packet and frame wrappers made so far: flat once the queues have filled (no allocation per frame).
    public var pooledObjectCount: Int {
        lock.withLock { [audioTrack, videoTrack].compactMap { $0 }.reduce(0) { $0 + $1.pooledObjectCount } }
    }

    /// The player's events from now on; a closed player's stream ends at once, so a caller that
    /// asks after a close (a file stopped before it began) is not left waiting.
    public func events() -> AsyncStream<PlayerEvent> {
        let (stream, continuation) = AsyncStream<PlayerEvent>.makeStream()
        let isOpen = lock.withLock {
            if !isClosed { observers.append(continuation) }
            return !isClosed
        }
        if !isOpen { continuation.finish() }
        return stream
    }

    public func prepare() {
        let start = lock.withLock {
            guard !isPrepareCalled, !isClosed else { return false }
            isPrepareCalled = true
            setLoad(.loading)
            return true
        }
        if start { source.open(delegate: self) }
    }

    public func play() {
        lock.withLock {
            wantsToPlay = true
            switch playback {
            case .paused where isStepped:
                seekLocked(to: playingPosition, mode: .exact)
            case .idle, .paused: setPlayback(.playing)
            case .finished: seekLocked(to: 0, mode: options.seekMode)
            case .playing, .seeking, .stopped: break
            }
            updateRendering()
        }
    }

    public func pause() {
        lock.withLock {
            wantsToPlay = false
            if playback == .playing || playback == .idle { setPlayback(.paused) }
            updateRendering()
        }
    }

    public func seek(to position: Double, mode: SeekMode? = nil) {
        lock.withLock { seekLocked(to: position, mode: mode ?? options.seekMode) }
    }

    public func selectAudioTrack(_ number: Int) throws(MediaError) {
        lock.lock()
        defer { lock.unlock() }
        guard let info, let audioTrack, !isClosed else { throw MediaError(input: url, reason: "no audio playing") }
        let streams = info.streams.filter { $0.type == MediaKind.audio.rawValue }
        guard streams.indices.contains(number - 1) else {
            throw MediaError(input: url, reason: "no audio track \(number) (the file has \(streams.count))")
        }
        guard streams[number - 1].index != Int(audioTrack.streamIndex) else { return }
        source.switchAudio(toStream: streams[number - 1].index)
        // The new stream's packets were not kept: read again from here, as mpv's refresh seek.
        seekLocked(to: playingPosition, mode: .exact)
    }

    /// Seconds from the start where playback stands: the clock, or where it rests.
    private var playingPosition: Double {
        clock.mediaTime(at: MonotonicClock.now()).map { $0 - (info?.startTime ?? 0) } ?? restingPosition
    }

    public func stepFrame(forward: Bool) {
        lock.withLock {
            guard !isClosed, let videoRenderer, info != nil else { return }
            wantsToPlay = false
            if playback == .playing { setPlayback(.paused) }
            updateRendering()
            if !forward, let shown = videoRenderer.lastPresentedMediaPts {
                seekLocked(to: shown - (info?.startTime ?? 0), mode: .frameBefore)
            } else if forward, playback == .paused {
                isStepped = true
                videoRenderer.requestStep()
                videoOutput.requestRefresh()
            }
        }
    }

    public func close() {
        let shouldClose = lock.withLock {
            guard !isClosed else { return false }
            isClosed = true
            updateRendering()
            setPlayback(.stopped)
            return true
        }
        guard shouldClose else { return }
        audioOutput.close()
        videoOutput.close()
        lock.withLock { audioTempo }?.close()  // before the tracks close under it
        source.close()
        notifier?.close()
        let finishing = lock.withLock {
            defer { observers.removeAll() }
            return observers
        }
        for observer in finishing { observer.finish() }
    }

    // MARK: SourceDelegate (the read thread)

    /// Opens the outputs and makes the renderers. Under the lock, so a close cannot slip in
    /// between and leave outputs opened after it closed them.
    public func source(_ source: MediaSource, didOpen info: MediaInfo, tracks: [Track], subtitles embedded: [SubtitleTrack]) throws(MediaError) {
        lock.lock()
        defer { lock.unlock() }
        guard let notifier, !isClosed else { throw MediaError(input: url, reason: "closed") }
        for track in tracks {
            switch track.kind {
            case .audio:
                let native = track.nativeAudioFormat ?? AudioFormat(sampleFormat: .float32, sampleRate: 48000, channelCount: 2)
                let stage = AudioTempoStage(track: track, tempo: speedValue)
                let renderer = AudioRenderer(stage: stage, clock: clock, notifier: notifier)
                let format = try audioOutput.open(source: native, renderer: renderer)
                renderer.configure(format: format)
                track.configureAudio(output: format)
                stage.start(format: format)
                (audioTrack, audioRenderer, audioTempo) = (track, renderer, stage)
            case .video:
                let renderer = VideoRenderer(track: track, clock: clock, notifier: notifier, isUntimed: options.isUntimed,
                                             subtitles: subtitles.selection)
                clock.setRate(speedValue, at: MonotonicClock.now())
                try videoOutput.open(renderer: renderer, format: track.videoFormat ?? VideoFormat(width: 0, height: 0))
                track.configureVideo(acceptedPixelFormats: videoOutput.acceptedPixelFormats)
                (videoTrack, videoRenderer) = (track, renderer)
            }
        }
        self.info = info
        if let warning = subtitles.mediaDidOpen(embedded: embedded, startTime: info.startTime) { Log.player.warning("\(warning)") }
        applyGain()
        applyLoopEnd()
        audioRenderer?.begin(serial: serial, timelineStart: nil, reportsLoops: videoRenderer == nil)
        videoRenderer?.begin(serial: serial)
        emit(.prepared(info))
    }

    public func source(_ source: MediaSource, didReplace old: Track, with new: Track) throws(MediaError) {
        lock.lock()
        defer { lock.unlock() }
        guard !isClosed, old === audioTrack, let format = old.audioFormat, let audioTempo else {
            throw MediaError(input: url, reason: "no audio playing to switch from")
        }
        new.configureAudio(output: format)
        audioTempo.replaceTrack(with: new)
        audioTrack = new
    }

    public func source(_ source: MediaSource, didFailWith error: MediaError) {
        lock.withLock {
            guard !isClosed else { return }
            Log.player.debug("\(url): \(error.reason)")
            setLoad(.idle)
            setPlayback(.finished)
            emit(.finished(error))
        }
    }

    public func source(_ source: MediaSource, didEvaluate report: BufferingReport, loadState: LoadState, serial: Int) {
        lock.withLock {
            guard !isClosed, serial == self.serial else { return }
            bufferedDuration = report.bufferedDuration
            setLoad(loadState)
            if load == .loading, report.progress != lastProgress {
                lastProgress = report.progress
                emit(.bufferingProgress(percent: report.progress, buffered: report.bufferedDuration))
            }
            if load == .playable { becamePlayable() }
            updateRendering()
        }
    }

    // MARK: Renderer notes (the notifier's thread)

    private func handle(_ note: RenderNotifier.Note, serial: Int) {
        lock.withLock {
            guard !isClosed, serial == self.serial else { return }
            switch note {
            case .firstFramePresented:
                presentedSerial = serial
                if seekTarget != nil { seekLanded() } else { startedIfFirst() }
            case .loopPassed:
                loopCount += 1
                emit(.loopDone(count: loopCount))
            case .loopEndReached:
                guard abLoopValue.isActive, let a = abLoopValue.a else { return }
                loopCount += 1
                emit(.loopDone(count: loopCount))
                seekLocked(to: a, mode: .exact)
            case .audioEnded:
                audioEnded = true
                videoRenderer?.stopFollowingAudio()
                endIfEverythingPlayed()
            case .videoEnded:
                videoEnded = true
                endIfEverythingPlayed()
            }
        }
    }

    // MARK: Under the lock

    private func seekLocked(to position: Double, mode: SeekMode) {
        guard !isClosed else { return }
        var target = max(0, position)
        if let duration = info?.duration, target > duration { target = source.isLooping ? 0 : duration }
        // Rendering stops first, so no callback in progress sets the clock after it is reset.
        setLoad(.loading)
        setPlayback(.seeking)
        updateRendering()
        serial = source.seek(to: target, mode: mode)
        audioTempo?.flush()
        seekTarget = target
        hasSeeked = true
        isStepped = false
        clock.invalidate()
        audioEnded = false
        videoEnded = false
        audioRenderer?.begin(serial: serial, timelineStart: nil, reportsLoops: videoRenderer == nil)
        videoRenderer?.begin(serial: serial)
    }

    private func becamePlayable() {
        if seekTarget != nil, videoRenderer == nil { seekLanded() }
        let willRender = playback == .playing || (playback == .seeking && wantsToPlay)
        // Asked again at each evaluation until shown: the frame may still be decoding.
        if !willRender, presentedSerial != serial, let videoRenderer {
            videoRenderer.requestPreview()
            videoOutput.requestRefresh()
        }
    }

    private func seekLanded() {
        let start = info?.startTime ?? 0
        let landed = videoRenderer?.firstPts(serial: serial).map { $0 - start } ?? seekTarget ?? 0
        seekTarget = nil
        hasStarted = true
        restingPosition = max(0, landed)
        emit(.seekDone(position: max(0, landed)))
        setPlayback(wantsToPlay ? .playing : .paused)
    }

    private func startedIfFirst() {
        guard !hasStarted else { return }
        hasStarted = true
        emit(.started(position: restingPosition))
    }

    private func endIfEverythingPlayed() {
        guard (audioRenderer == nil || audioEnded), (videoRenderer == nil || videoEnded), playback != .finished else { return }
        if seekTarget != nil { seekLanded() }
        setPlayback(.finished)
        updateRendering()
        emit(.finished(nothingDecoded()))
    }

    /// The error for media in which no played stream decoded a single frame (mpv: "Errors
    /// when loading file"); nil when one did.
    private func nothingDecoded() -> MediaError? {
        let tracks = [videoTrack, audioTrack].compactMap { $0 }
        let reasons = tracks.compactMap(\.nothingDecodedReason)
        guard !tracks.isEmpty, reasons.count == tracks.count else { return nil }
        return MediaError(input: url, reason: reasons[0])
    }

    /// Starts or stops the render loops: they run only while playing and playable. Untimed
    /// playback waits for nothing: its renderers take frames as they come.
    private func updateRendering() {
        let shouldRender = !isClosed && (load == .playable || (options.isUntimed && info != nil))
            && (playback == .playing || (playback == .seeking && wantsToPlay))
        guard shouldRender != isRendering else { return }
        isRendering = shouldRender
        let now = MonotonicClock.now()
        if shouldRender {
            if timelineSerial != serial {
                timelineSerial = serial
                audioRenderer?.begin(serial: serial, timelineStart: timelineStart(), reportsLoops: videoRenderer == nil)
            } else {
                clock.resume(at: now)
            }
            videoRenderer?.setRunning(true, followsAudio: audioRenderer != nil && !audioEnded, reportsLoops: true)
            if videoRenderer != nil { videoOutput.start() }
            if audioRenderer != nil { audioOutput.start() }
            if videoRenderer == nil { startedIfFirst() }
        } else {
            if audioRenderer != nil { audioOutput.pause() }
            if videoRenderer != nil { videoOutput.pause() }
            videoRenderer?.setRunning(false, followsAudio: audioRenderer != nil && !audioEnded, reportsLoops: true)
            clock.freeze(at: now)
        }
    }

    /// Where the timeline of a new serial starts. At the opening, the earliest first frame of its
    /// tracks, so audio that starts later than the video begins with silence instead of dragging
    /// it along. After a seek, the first picture when there is one, as mpv does: a seek to a key
    /// frame leaves the audio up to a few frames ahead of it, and that sound is skipped rather than
    /// making the picture wait.
    private func timelineStart() -> Double? {
        let video = videoRenderer?.firstPts(serial: serial)
        // Where the first sample to be played lies: after what an exact seek trimmed.
        let audio = audioTempo?.firstQueuedPosition(serial: serial)
        switch (video, audio) {
        case let (video?, audio?): return hasSeeked ? video : min(video, audio)
        case let (video?, nil): return video
        case let (nil, audio?): return audio
        case (nil, nil): return nil
        }
    }

    /// B goes to the renderer that shows where playback stands: the picture, or the sound alone.
    private func applyLoopEnd() {
        let end = abLoopValue.isActive ? abLoopValue.b.map { $0 + (info?.startTime ?? 0) } : nil
        if let videoRenderer {
            videoRenderer.setLoopEnd(end)
        } else {
            audioRenderer?.setLoopEnd(end)
        }
    }

    private func applyGain() {
        let level = Double(volumeValue) / 100
        audioRenderer?.setGain(muted ? 0 : level * level * level)
    }

    private func setPlayback(_ state: PlaybackState) {
        guard state != playback else { return }
        Log.player.debug("playback \(playback) → \(state)")
        playback = state
        emit(.playbackStateChanged(state))
    }

    private func setLoad(_ state: LoadState) {
        guard state != load else { return }
        Log.player.debug("load \(load) → \(state)")
        load = state
        if state == .loading { lastProgress = -1 }
        emit(.loadStateChanged(state))
    }

    /// Yields to every observer; one whose stream has ended is dropped here. (No onTermination
    /// handler: it would take the player's lock while the stream holds its own, against the
    /// order used here.)
    private func emit(_ event: PlayerEvent) {
        observers.removeAll { observer in
            if case .terminated = observer.yield(event) { return true }
            return false
        }
    }
}
