/// Where the machine's effects are applied: one thread at a time, in the order they were decided,
/// with the player's lock released, so that opening, starting and pausing the outputs or seeking
/// the source never happen under it.
extension Player {
    /// Hands a caller's request to the machine and returns once its effects have been applied,
    /// by this thread or by the one applying already: after `seek` returns, nothing from before
    /// the seek is presented.
    func request(_ event: PlaybackMachine.Event) {
        guard let decided = handOver(event) else { return }
        lock.withLock {
            while isApplying, appliedEffectCount < decided { lock.wait() }
        }
    }

    /// Hands a report (the source's, a renderer's) to the machine and applies what it decides,
    /// unless another thread is applying already: that thread then applies these after its own.
    func perform(_ event: PlaybackMachine.Event) {
        _ = handOver(event)
    }

    /// Queues what the machine decides on `event` and applies it when no other thread is
    /// applying; otherwise returns how many effects have been decided so far, its own the last.
    private func handOver(_ event: PlaybackMachine.Event) -> Int? {
        let decided: Int? = lock.withLock {
            queue(machine.handle(event))
            guard !isApplying, !pendingEffects.isEmpty else { return decidedEffectCount }
            isApplying = true
            return nil
        }
        if decided == nil { applyPendingEffects() }
        return decided
    }

    /// Queues what the machine decides on `event`; for the thread applying effects.
    func decide(_ event: PlaybackMachine.Event) {
        lock.withLock { queue(machine.handle(event)) }
    }

    /// Under `lock`.
    private func queue(_ effects: [PlaybackMachine.Effect]) {
        pendingEffects.append(contentsOf: effects)
        decidedEffectCount += effects.count
    }

    /// Makes the calling thread the one applying effects, once the one before has finished,
    /// and returns the playback speed. Throws when the player has closed (which does not wait
    /// for this, so a source's open is not held up by a close that joins its thread).
    func beginExclusive() throws(MediaError) -> Double {
        let speed: Double? = lock.withLock {
            while isApplying, machine.lifecycle != .closed { lock.wait() }
            guard machine.lifecycle != .closed else { return nil }
            isApplying = true
            return machine.speed
        }
        guard let speed else { throw MediaError(input: url, reason: "closed") }
        return speed
    }

    /// Applies the queued effects in order until none is left, then lets another thread apply.
    func applyPendingEffects() {
        var effect = nextEffect(applied: 0)
        while let current = effect {
            apply(current)
            effect = nextEffect(applied: 1)
        }
    }

    private func nextEffect(applied: Int) -> PlaybackMachine.Effect? {
        lock.withLock {
            appliedEffectCount += applied
            guard !pendingEffects.isEmpty else {
                isApplying = false
                lock.broadcast()
                return nil
            }
            if applied > 0 { lock.broadcast() }  // a caller may be waiting for this one
            return pendingEffects.removeFirst()
        }
    }

    public func close() {
        let isFirst = lock.withLock {
            defer { isClosing = true }
            return !isClosing
        }
        guard isFirst else { return }
        _ = handOver(.close)
        // What was decided before the close is applied before anything is closed under it.
        let audioTempo = lock.withLock {
            while isApplying { lock.wait() }
            return self.audioTempo
        }
        audioOutput.close()
        videoOutput.close()
        audioTempo?.close()  // before the tracks close under it
        source.close()
        notifier?.close()
        let finishing = observers.withLock { observers in
            defer { observers.removeAll() }
            return observers
        }
        for observer in finishing { observer.finish() }
    }

    private func apply(_ effect: PlaybackMachine.Effect) {
        let (audioRenderer, audioTempo, videoRenderer) = lock.withLock { (self.audioRenderer, self.audioTempo, self.videoRenderer) }
        switch effect {
        case .openSource:
            source.open(delegate: self)
        case let .seekSource(target, mode, serial):
            source.seek(to: target, mode: mode, serial: serial)
            audioTempo?.flush(keeping: serial)
            clock.invalidate(serial: serial)
        case let .switchAudio(stream):
            source.switchAudio(toStream: stream)
        case let .beginSerial(serial, audioReportsLoops):
            // Rendering is stopped here. The renderer takes the serial first, then pausing again
            // waits out a refresh under way (a preview or step of the old serial): once this is
            // applied nothing from before is presented, as any refresh after is of the new one.
            videoRenderer?.begin(serial: serial)
            if videoRenderer != nil { videoOutput.pause() }
            audioRenderer?.begin(serial: serial, timelineStart: nil, startsNow: false, reportsLoops: audioReportsLoops)
        case let .startRendering(timelineSerial, start, followsAudio):
            if let timelineSerial {
                // Live starts at once, with whatever sound there is; otherwise the first decoded
                // sound is in the stage's queue before the output pulls.
                if start != .firstPictureNow { audioTempo?.awaitFirstFrame(serial: timelineSerial, seconds: Self.firstSoundWait) }
                audioRenderer?.begin(serial: timelineSerial, timelineStart: timelineStart(serial: timelineSerial, from: start),
                                     startsNow: start == .firstPictureNow, reportsLoops: videoRenderer == nil)
            } else {
                clock.resume(at: MonotonicClock.now())
            }
            videoRenderer?.setRunning(true, followsAudio: followsAudio, reportsLoops: true)
            if videoRenderer != nil { videoOutput.start() }
            if audioRenderer != nil { audioOutput.start() }
        case let .stopRendering(followsAudio):
            if audioRenderer != nil { audioOutput.pause() }
            if videoRenderer != nil { videoOutput.pause() }
            videoRenderer?.setRunning(false, followsAudio: followsAudio, reportsLoops: true)
            clock.freeze(at: MonotonicClock.now())
        case .showPreview:
            videoRenderer?.requestPreview()
            videoOutput.requestRefresh()
        case .showStep:
            videoRenderer?.requestStep()
            videoOutput.requestRefresh()
        case .stopFollowingAudio:
            videoRenderer?.stopFollowingAudio()
        case let .setGain(gain):
            audioRenderer?.setGain(gain)
        case let .setLoopEnd(end, .video):
            videoRenderer?.setLoopEnd(end)
        case let .setLoopEnd(end, .audio):
            audioRenderer?.setLoopEnd(end)
        case let .setTempo(speed):
            // Loaded here, not on the tempo stage's thread, which feeds the output a callback ahead.
            if speed != 1, audioTempo != nil { FilterLibrary.prepare() }
            audioTempo?.setTempo(speed)
            playbackRate.speed = speed  // with sound, the clock follows the tempo: no setClockRate comes
        case let .setClockRate(speed):
            clock.setRate(speed, at: MonotonicClock.now())
            playbackRate.speed = speed
        case let .emit(event):
            emit(event)
        case .emitEnd:
            emit(.finished(nothingDecoded() ?? source.readFailure))
        }
    }

    /// The longest the output's start waits for the sound's first frame to reach the tempo stage:
    /// a moment normally; this bounds a thread descheduled for long.
    static let firstSoundWait = 0.5

    /// Where the timeline of a new serial starts (`PlaybackMachine.TimelineStart` says why).
    private func timelineStart(serial: Int, from start: PlaybackMachine.TimelineStart) -> Double? {
        let (videoRenderer, audioTempo) = lock.withLock { (self.videoRenderer, self.audioTempo) }
        let video = videoRenderer?.firstPts(serial: serial)
        // Where the first sample to be played lies: after what an exact seek trimmed.
        let audio = audioTempo?.firstQueuedPosition(serial: serial)
        switch (video, audio) {
        case let (video?, audio?): return start == .earliestFrame ? min(video, audio) : video
        case let (video?, nil): return video
        case let (nil, audio?): return audio
        case (nil, nil): return nil
        }
    }

    /// The error for media in which no played stream decoded a single frame (mpv: "Errors
    /// when loading file"); nil when one did.
    private func nothingDecoded() -> MediaError? {
        let tracks = lock.withLock { [videoTrack, audioTrack] }.compactMap { $0 }
        let reasons = tracks.compactMap(\.nothingDecodedReason)
        guard !tracks.isEmpty, reasons.count == tracks.count else { return nil }
        return MediaError(input: url, reason: reasons[0])
    }

    /// Yields to every observer; one whose stream has ended is dropped here. (No onTermination
    /// handler: it would take the observers' lock while the stream holds its own, against the
    /// order used here.)
    private func emit(_ event: PlayerEvent) {
        switch event {
        case let .playbackStateChanged(state): Log.player.debug("playback → \(state)")
        case let .loadStateChanged(state): Log.player.debug("load → \(state)")
        default: break
        }
        observers.withLock { observers in
            observers.removeAll { observer in
                if case .terminated = observer.yield(event) { return true }
                return false
            }
        }
    }
}
