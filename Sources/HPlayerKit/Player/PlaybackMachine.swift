/// Playback's decisions as a pure state machine: the player feeds it what happened (a request,
/// a source's report, a renderer's note) and applies the effects it returns, in order and outside
/// the player's lock (PlayerEffects.swift). Nothing here calls out or reads a clock: what an
/// event needs to know (where the clock stands, the pts of the first picture shown) comes with it.
///
/// Its two public machines are `playback` (idle, playing, paused, seeking, finished, stopped) and
/// `load` (idle, loading, playable); each played stream has a status besides, in the words of
/// mpv's `playback_status` but for `filling`.
struct PlaybackMachine: Equatable {
    /// Where one played stream stands.
    enum StreamStatus: String, Sendable {
        /// A seek was asked: waiting for the first frame at its target.
        case syncing
        /// Buffering: not enough read and decoded to play. Ours: mpv has no such status (it
        /// pauses playback as a whole for the cache, `paused-for-cache`).
        case filling
        /// Enough to play, but not rendering (paused, or asked to play and about to).
        case ready
        case playing
        /// Playing what is queued: the input has been read to its end.
        case draining
        /// Its renderer has played its last frame.
        case eof
    }

    enum Lifecycle: Equatable {
        /// `failed`: the opening failed, and the source's read thread has ended with it.
        case idle, opening, open, failed, closed
    }

    enum Event: Equatable {
        case prepare
        case opened(MediaInfo, hasAudio: Bool, hasVideo: Bool)
        case failed(MediaError)
        /// The source's buffering evaluation for the frames of `serial`.
        case evaluated(BufferingReport, loadState: LoadState, serial: Int)
        /// `clock`: seconds from the start where the clock stands, nil while it has no time.
        case play(clock: Double?)
        case pause
        /// `mode` nil: the player's default. Before the source is open, kept as `startAt` is.
        case seek(to: Double, mode: SeekMode?)
        /// A seek to a start position (a fraction or a time before the end, of the duration).
        /// Before the source is open it is kept, the last one winning, and made as it opens,
        /// so nothing from before it is shown.
        case startAt(StartPosition, mode: SeekMode?)
        /// Another audio stream (the container's index), picked up where the clock stands.
        case selectAudio(stream: Int, clock: Double?)
        /// `shown`: the media pts of the picture on screen, if any.
        case step(forward: Bool, shown: Double?)
        case setLooping(Bool)
        case setVolume(Int)
        case setMuted(Bool)
        case setABLoop(ABLoop)
        case setSpeed(Double)
        /// Live mode: how far playback is behind the newest data read (seconds), how much of that
        /// is queued, which a catch-up can play through (the rest is the outputs' own latency),
        /// the pts of the newest data read, and where the newest video key frame read starts.
        case liveEdge(behind: Double, queued: Double, readEnd: Double, keyFrame: Double?)
        case close
        /// A renderer's note about `serial`. `firstPicture`: the pts of the first picture shown
        /// for that serial, when one has been.
        case rendered(RenderNotifier.Note, serial: Int, firstPicture: Double?)
    }

    /// The renderer that shows where playback stands: the picture, or the sound when there is none.
    enum Stage: Equatable {
        case audio, video
    }

    /// Where the timeline of a new serial starts: what the clock reads when rendering begins.
    enum TimelineStart: Equatable {
        /// The opening: the earliest first frame of the tracks, so that sound starting after the
        /// picture begins with silence rather than dragging the picture along.
        case earliestFrame
        /// After a seek: the first picture, as mpv does. A seek to a key frame leaves the sound a
        /// few frames ahead of it; that sound is skipped rather than making the picture wait.
        case firstPicture
        /// Live: the first picture, shown at once. What came before it is skipped, and so is the
        /// sound the output would still hold when the picture shows: the clock reads the
        /// picture's pts the moment rendering begins, and the latency is that of the picture.
        case firstPictureNow
    }

    enum Effect: Equatable {
        case openSource
        /// Seek the source, drop what the stages hold, and invalidate the clock under `serial`.
        case seekSource(to: Double, mode: SeekMode, serial: Int)
        case switchAudio(stream: Int)
        /// The renderers take frames of `serial` only from now on.
        case beginSerial(Int, audioReportsLoops: Bool)
        /// Start the outputs and render loops. `timelineOf`: the serial whose timeline starts now,
        /// where `from` says; nil: the clock resumes where it stood.
        case startRendering(timelineOf: Int?, from: TimelineStart, followsAudio: Bool)
        case stopRendering(followsAudio: Bool)
        /// Show the first frame of the serial though playback is paused.
        case showPreview
        /// Show the next frame and stay paused.
        case showStep
        case stopFollowingAudio
        case setGain(Double)
        /// An A-B loop's B in media pts (nil: none), on the renderer that shows the position.
        case setLoopEnd(Double?, on: Stage)
        case setTempo(Double)
        case setClockRate(Double)
        case emit(PlayerEvent)
        /// Playback has ended: `finished`, with an error when nothing could be decoded.
        case emitEnd
    }

    struct Configuration: Equatable {
        var seekMode = SeekMode.keyframe
        var isUntimed = false
        /// Live mode's latency target (`--live-latency`): what is held beyond it is caught up.
        var liveLatencyTarget: Double?
        /// Whether a live HLS playlist is played at its live edge (not with `--no-live`).
        var followsLiveHLS = true
        /// `--replaygain` and its options: the file's loudness tags read as it opens.
        var replayGain = ReplayGain()
    }

    /// How live playback keeps its latency.
    struct LiveControl: Equatable {
        /// What is held beyond this is caught up (LiveCatchUp).
        var latencyTarget: Double
        /// HLS: media comes a segment at a time. A quiet read thread is then no sign of waiting
        /// for data, and far behind there is no jump: the newest key frame queued is a segment
        /// from the live edge, well inside the target.
        var isSegmented = false
        /// How far over the target a catch-up starts.
        var tolerance = LiveCatchUp.startExcess
    }

    let configuration: Configuration
    /// Live playback's control; nil plays as a file. Known at the start for a live protocol, and
    /// once open for a live HLS playlist.
    private(set) var live: LiveControl?

    private(set) var lifecycle = Lifecycle.idle
    private(set) var playback = PlaybackState.idle
    private(set) var load = LoadState.idle
    private(set) var info: MediaInfo?
    /// nil: the media has no such stream played.
    private(set) var audio: StreamStatus?
    private(set) var video: StreamStatus?
    /// What the user last asked for: play (true) or pause.
    private(set) var wantsToPlay = false
    /// The serial of the latest seek: only its frames and reports count.
    private(set) var serial = 0
    /// The target of a seek that has not landed yet.
    private(set) var seekTarget: Double?
    /// Whether any seek has been asked since opening (the timeline then starts at the picture).
    private(set) var hasSeeked = false
    /// Whether `started` (or a seek's `seekDone`) has been told since opening.
    private(set) var hasStarted = false
    /// The serial whose timeline has begun, and the serial whose first picture has been shown.
    private(set) var timelineSerial = -1
    private(set) var presentedSerial = -1
    /// Where playback stands while the clock has no time (after a seek, before playing).
    private(set) var restingPosition = 0.0
    /// A forward frame step moved the picture on while the sound stood still: playing again
    /// seeks to the frame shown, so both start there.
    private(set) var isStepped = false
    private(set) var isRendering = false
    private(set) var isInputFinished = false
    private(set) var loopCount = 0
    private(set) var bufferedDuration = 0.0
    private(set) var bufferedBytes = 0
    /// Playback ran dry while playing and waits for more (mpv's paused-for-cache); not the
    /// loading of an opening or a seek.
    private(set) var isRebuffering = false
    private(set) var lastProgress = -1
    private(set) var isLooping: Bool
    private(set) var volume = 100
    private(set) var isMuted = false
    private(set) var abLoop: ABLoop
    private(set) var speed: Double
    /// Live mode's catch-up, on top of `speed` (1: none), and how far behind the newest data
    /// playback was last measured.
    private(set) var liveSpeed = 1.0
    /// The seek under way is live mode's jump to the newest key frame, not one asked for.
    private var isLiveJump = false
    /// A seek asked before the source was open, made as it opens.
    private var queuedStart: QueuedStart?

    private struct QueuedStart: Equatable {
        var start: StartPosition
        var mode: SeekMode?
    }
    private(set) var liveLatency: Double?

    private var effects: [Effect] = []

    init(configuration: Configuration = Configuration(), isLooping: Bool = false, abLoop: ABLoop = ABLoop(), speed: Double = 1) {
        self.configuration = configuration
        live = configuration.isUntimed ? nil : configuration.liveLatencyTarget.map { LiveControl(latencyTarget: $0) }
        self.isLooping = isLooping
        self.abLoop = abLoop
        self.speed = PlaybackSpeed.clamped(speed)
    }

    var hasAudio: Bool { audio != nil }
    var hasVideo: Bool { video != nil }
    var startTime: Double { info?.startTime ?? 0 }

    /// The volume as a factor on the samples: the cube of mpv's 0...100, so steps sound even.
    /// The volume's cubic curve, as mpv's, times the ReplayGain factor of the file open.
    var gain: Double {
        let level = Double(volume) / 100
        return isMuted ? 0 : level * level * level * replayGainFactor
    }
    private(set) var replayGainFactor = 1.0

    mutating func handle(_ event: Event) -> [Effect] {
        effects = []
        if lifecycle == .closed { return [] }
        switch event {
        case .prepare: prepare()
        case let .opened(info, hasAudio, hasVideo): opened(info, hasAudio: hasAudio, hasVideo: hasVideo)
        case let .failed(error): failed(error)
        case let .evaluated(report, loadState, serial): evaluated(report, loadState: loadState, serial: serial)
        case let .play(clock): play(clock: clock)
        case .pause: pause()
        case let .seek(position, mode): requestSeek(to: .seconds(position), mode: mode)
        case let .startAt(start, mode): requestSeek(to: start, mode: mode)
        case let .selectAudio(stream, clock):
            effects.append(.switchAudio(stream: stream))
            // The new stream's packets were not kept: read again from here, as mpv's refresh seek.
            seek(to: position(clock: clock), mode: .exact)
        case let .step(forward, shown): step(forward: forward, shown: shown)
        case let .setLooping(looping): isLooping = looping
        case let .setVolume(volume):
            self.volume = min(100, max(0, volume))
            effects.append(.setGain(gain))
        case let .setMuted(muted):
            isMuted = muted
            effects.append(.setGain(gain))
        case let .setABLoop(loop):
            abLoop = loop
            applyLoopEnd()
        case let .setSpeed(speed): setSpeed(speed)
        case let .liveEdge(behind, queued, readEnd, keyFrame):
            liveLatency = behind
            if let live { catchUp(queued: queued, live: live, readEnd: readEnd, keyFrame: keyFrame) }
        case .close: close()
        case let .rendered(note, serial, firstPicture):
            if serial == self.serial { rendered(note, firstPicture: firstPicture) }
        }
        updateStreamStatus()
        return effects
    }

    // MARK: Requests

    private mutating func prepare() {
        guard lifecycle == .idle else { return }
        lifecycle = .opening
        setLoad(.loading)
        effects.append(.openSource)
    }

    private mutating func play(clock: Double?) {
        wantsToPlay = true
        switch playback {
        case .paused where isStepped: seek(to: position(clock: clock), mode: .exact)
        case .idle, .paused: setPlayback(.playing)
        case .finished: seek(to: 0, mode: configuration.seekMode)
        case .playing, .seeking, .stopped: break
        }
        updateRendering()
    }

    private mutating func pause() {
        wantsToPlay = false
        if playback == .playing || playback == .idle { setPlayback(.paused) }
        updateRendering()
    }

    private mutating func step(forward: Bool, shown: Double?) {
        guard lifecycle == .open, hasVideo else { return }
        wantsToPlay = false
        if playback == .playing { setPlayback(.paused) }
        updateRendering()
        if !forward, let shown {
            seek(to: shown - startTime, mode: .frameBefore)
        } else if forward, playback == .paused {
            isStepped = true
            effects.append(.showStep)
        }
    }

    private mutating func setSpeed(_ newSpeed: Double) {
        speed = PlaybackSpeed.clamped(newSpeed)
        applyTempo()
    }

    /// The rate media plays at: the speed asked for, times live mode's catch-up.
    private mutating func applyTempo() {
        let tempo = PlaybackSpeed.clamped(speed * liveSpeed)
        effects.append(.setTempo(tempo))
        // With sound, the audio renderer moves the clock to the new rate as it is heard.
        if !hasAudio || audio == .eof { effects.append(.setClockRate(tempo)) }
    }

    private mutating func close() {
        endRebuffering()
        lifecycle = .closed
        updateRendering()
        setPlayback(.stopped)
    }

    /// Seconds from the start where playback stands: the clock, or where it rests.
    private func position(clock: Double?) -> Double { clock ?? restingPosition }

    private mutating func requestSeek(to start: StartPosition, mode: SeekMode?) {
        switch lifecycle {
        case .idle, .opening: queuedStart = QueuedStart(start: start, mode: mode)
        case .open:
            guard let position = start.seconds(duration: info?.duration) else { return }
            seek(to: position, mode: mode ?? configuration.seekMode)
        case .failed, .closed: break
        }
    }

    private mutating func seek(to position: Double, mode: SeekMode) {
        // Nothing reads a failed source's seek (nor plays it again from the start): it would
        // never land. It stays finished with its error, as mpv leaves a file that failed to load.
        guard lifecycle != .failed else { return }
        var target = max(0, position)
        if let duration = info?.duration, target > duration { target = isLooping ? 0 : duration }
        endRebuffering()
        isLiveJump = false
        // Rendering stops first, so no callback in progress sets the clock after it is reset.
        setLoad(.loading)
        setPlayback(.seeking)
        updateRendering()
        serial += 1
        effects.append(.seekSource(to: target, mode: mode, serial: serial))
        seekTarget = target
        hasSeeked = true
        isStepped = false
        isInputFinished = false
        if hasAudio { audio = .syncing }
        if hasVideo { video = .syncing }
        effects.append(.beginSerial(serial, audioReportsLoops: !hasVideo))
    }

    // MARK: The source's reports

    private mutating func opened(_ info: MediaInfo, hasAudio: Bool, hasVideo: Bool) {
        guard lifecycle == .opening else { return }
        lifecycle = .open
        self.info = info
        if live == nil, configuration.followsLiveHLS, !configuration.isUntimed, let holdBack = info.liveHoldBack {
            live = LiveControl(latencyTarget: holdBack, isSegmented: true, tolerance: LiveCatchUp.segmentedTolerance(holdBack: holdBack))
        }
        audio = hasAudio ? .filling : nil
        video = hasVideo ? .filling : nil
        replayGainFactor = configuration.replayGain.factor(for: ReplayGain.Tags(info.tags))
        effects.append(.setGain(gain))
        applyLoopEnd()
        effects.append(.beginSerial(serial, audioReportsLoops: !hasVideo))
        effects.append(.emit(.prepared(info)))
        // In the same step, before any buffering report of the opening can show its first frame.
        if let queued = queuedStart {
            queuedStart = nil
            requestSeek(to: queued.start, mode: queued.mode)
        }
    }

    private mutating func failed(_ error: MediaError) {
        lifecycle = .failed
        endRebuffering()
        setLoad(.idle)
        setPlayback(.finished)
        effects.append(.emit(.finished(error)))
    }

    private mutating func evaluated(_ report: BufferingReport, loadState: LoadState, serial: Int) {
        guard serial == self.serial else { return }
        bufferedDuration = report.bufferedDuration
        bufferedBytes = report.bufferedBytes
        isInputFinished = report.isInputFinished
        if load == .playable, loadState == .loading, playback == .playing, seekTarget == nil, hasStarted {
            isRebuffering = true
            effects.append(.emit(.bufferingStarted))
        }
        setLoad(loadState)
        if load == .loading, report.progress != lastProgress {
            lastProgress = report.progress
            effects.append(.emit(.bufferingProgress(percent: report.progress, buffered: report.bufferedDuration)))
        }
        if load == .playable { becamePlayable() }
        updateRendering()
    }

    /// Live: plays a little faster while more than the target is queued, at 1x again once it is
    /// not; far behind, jumps to the newest key frame read, as a seek that reads nothing again
    /// (not past an A-B loop's end, nor in the tail of an input read to its end).
    private mutating func catchUp(queued: Double, live: LiveControl, readEnd: Double, keyFrame: Double?) {
        let isPlaying = playback == .playing && load == .playable && isRendering
        let target = live.latencyTarget
        // Sound alone can land anywhere: the source keeps the target's worth.
        let landing = live.isSegmented ? nil : hasVideo ? keyFrame.map { readEnd - $0 } : target
        if isPlaying, !isInputFinished, !abLoop.isActive, LiveCatchUp.jumps(buffered: queued, target: target, landing: landing) {
            seek(to: readEnd - startTime - target, mode: .liveEdge)
            isLiveJump = true
        }
        let wanted = isPlaying && !isLiveJump ? LiveCatchUp.speed(buffered: queued, target: target, current: liveSpeed, tolerance: live.tolerance) : 1
        guard wanted != liveSpeed else { return }
        liveSpeed = wanted
        applyTempo()
        effects.append(.emit(.liveCatchUp(speed: wanted)))
    }

    /// A stall ends when playback may run again, or when a seek or the end makes it moot.
    private mutating func endRebuffering() {
        guard isRebuffering else { return }
        isRebuffering = false
        effects.append(.emit(.bufferingEnded))
    }

    private mutating func becamePlayable() {
        endRebuffering()
        if seekTarget != nil, !hasVideo { seekLanded(firstPicture: nil) }
        let willRender = playback == .playing || (playback == .seeking && wantsToPlay)
        // Asked again at each evaluation until shown: the frame may still be decoding.
        if !willRender, presentedSerial != serial, hasVideo { effects.append(.showPreview) }
    }

    // MARK: The renderers' notes

    private mutating func rendered(_ note: RenderNotifier.Note, firstPicture: Double?) {
        switch note {
        case .firstFramePresented:
            presentedSerial = serial
            if seekTarget != nil { seekLanded(firstPicture: firstPicture) } else { startedIfFirst() }
        case .loopPassed:
            loopCount += 1
            effects.append(.emit(.loopDone(count: loopCount)))
        case .loopEndReached:
            guard abLoop.isActive, let a = abLoop.a else { return }
            loopCount += 1
            effects.append(.emit(.loopDone(count: loopCount)))
            seek(to: a, mode: .exact)
        case .audioEnded:
            guard hasAudio else { return }
            audio = .eof
            if hasVideo { effects.append(.stopFollowingAudio) }
            endIfEverythingPlayed(firstPicture: firstPicture)
        case .videoEnded:
            guard hasVideo else { return }
            video = .eof
            endIfEverythingPlayed(firstPicture: firstPicture)
        }
    }

    private mutating func seekLanded(firstPicture: Double?) {
        let landed = max(0, firstPicture.map { $0 - startTime } ?? seekTarget ?? 0)
        seekTarget = nil
        hasStarted = true
        restingPosition = landed
        effects.append(.emit(isLiveJump ? .liveJump(position: landed) : .seekDone(position: landed)))
        isLiveJump = false
        setPlayback(wantsToPlay ? .playing : .paused)
    }

    private mutating func startedIfFirst() {
        guard !hasStarted else { return }
        hasStarted = true
        effects.append(.emit(.started(position: restingPosition)))
    }

    private mutating func endIfEverythingPlayed(firstPicture: Double?) {
        guard audio == nil || audio == .eof, video == nil || video == .eof, playback != .finished else { return }
        endRebuffering()
        if seekTarget != nil { seekLanded(firstPicture: firstPicture) }
        setPlayback(.finished)
        updateRendering()
        effects.append(.emitEnd)
    }

    // MARK: Derived decisions

    /// The render loops run only while playing and playable. Untimed playback waits for
    /// nothing: its renderers take frames as they come.
    private mutating func updateRendering() {
        let shouldRender = lifecycle != .closed && (load == .playable || (configuration.isUntimed && info != nil))
            && (playback == .playing || (playback == .seeking && wantsToPlay))
        guard shouldRender != isRendering else { return }
        isRendering = shouldRender
        let followsAudio = hasAudio && audio != .eof
        guard shouldRender else { return effects.append(.stopRendering(followsAudio: followsAudio)) }
        let beginsTimeline = timelineSerial != serial
        timelineSerial = serial
        let isLive = live != nil
        let start: TimelineStart = isLive ? .firstPictureNow : hasSeeked ? .firstPicture : .earliestFrame
        effects.append(.startRendering(timelineOf: beginsTimeline ? serial : nil, from: start, followsAudio: followsAudio))
        if !hasVideo { startedIfFirst() }
    }

    private mutating func applyLoopEnd() {
        let end = abLoop.isActive ? abLoop.b.map { $0 + startTime } : nil
        effects.append(.setLoopEnd(end, on: hasVideo ? .video : .audio))
    }

    /// Each stream's status, from where the seek, the buffering and the rendering stand.
    private mutating func updateStreamStatus() {
        func status(_ current: StreamStatus?) -> StreamStatus? {
            guard let current, current != .eof else { return current }
            if seekTarget != nil { return .syncing }
            if load != .playable { return .filling }
            if !isRendering { return .ready }
            return isInputFinished ? .draining : .playing
        }
        audio = status(audio)
        video = status(video)
    }

    private mutating func setPlayback(_ state: PlaybackState) {
        guard state != playback else { return }
        playback = state
        effects.append(.emit(.playbackStateChanged(state)))
    }

    private mutating func setLoad(_ state: LoadState) {
        guard state != load else { return }
        load = state
        if state == .loading { lastProgress = -1 }
        effects.append(.emit(.loadStateChanged(state)))
    }
}
