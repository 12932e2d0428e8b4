/// What the source reports, on its read thread.
extension Player: SourceDelegate {
    /// Opens the outputs and makes the renderers, as the one thread applying effects: a close
    /// waits for it, and what was decided meanwhile is applied after it.
    public func source(_ source: MediaSource, didOpen info: MediaInfo, tracks: [Track], subtitles embedded: [SubtitleTrack]) throws(MediaError) {
        let speed = try beginExclusive()
        defer { applyPendingEffects() }
        guard let notifier else { throw MediaError(input: url, reason: "closed") }
        var made: (audio: (Track, AudioRenderer, AudioTempoStage)?, video: (Track, VideoRenderer)?) = (nil, nil)
        for track in tracks {
            switch track.kind {
            case .audio:
                let native = track.nativeAudioFormat ?? AudioFormat(sampleFormat: .float32, sampleRate: 48000, channelCount: 2)
                let stage = AudioTempoStage(track: track, tempo: speed)
                let renderer = AudioRenderer(stage: stage, clock: clock, notifier: notifier)
                let format = try audioOutput.open(source: native, renderer: renderer)
                renderer.configure(format: format)
                track.configureAudio(output: format)
                stage.start(format: format)
                made.audio = (track, renderer, stage)
                lock.withLock { (audioTrack, audioRenderer, audioTempo) = (track, renderer, stage) }
            case .video:
                let renderer = VideoRenderer(track: track, clock: clock, notifier: notifier, isUntimed: options.isUntimed,
                                             subtitles: subtitles.selection)
                clock.setRate(speed, at: MonotonicClock.now())
                try videoOutput.open(renderer: renderer, format: track.videoFormat ?? VideoFormat(width: 0, height: 0))
                track.configureVideo(acceptedPixelFormats: videoOutput.acceptedPixelFormats)
                made.video = (track, renderer)
                lock.withLock { (videoTrack, videoRenderer) = (track, renderer) }
            }
        }
        for warning in subtitles.mediaDidOpen(embedded: embedded, startTime: info.startTime,
                                              captionsMayFollow: tracks.contains { $0.captions != nil }) {
            Log.player.warning("\(warning)")
        }
        decide(.opened(info, hasAudio: made.audio != nil, hasVideo: made.video != nil))
        followsLiveEdge.store(lock.withLock { machine.live != nil }, ordering: .relaxed)
    }

    public func source(_ source: MediaSource, didFindCaptions track: SubtitleTrack) {
        let number = subtitles.addCaptions(track)
        Log.player.info("\(url): the video carries closed captions: subtitle track \(number)")
        videoOutput.requestRefresh()
    }

    public func source(_ source: MediaSource, didReplace old: Track, with new: Track) throws(MediaError) {
        _ = try beginExclusive()
        defer { applyPendingEffects() }
        let (playing, audioTempo) = lock.withLock { (audioTrack, self.audioTempo) }
        guard old === playing, let format = old.audioFormat, let audioTempo else {
            throw MediaError(input: url, reason: "no audio playing to switch from")
        }
        new.configureAudio(output: format)
        audioTempo.replaceTrack(with: new)
        lock.withLock { audioTrack = new }
    }

    public func source(_ source: MediaSource, didFailWith error: MediaError) {
        Log.player.debug("\(url): \(error.reason)")
        perform(.failed(error))
    }

    public func source(_ source: MediaSource, didEvaluate report: BufferingReport, loadState: LoadState, serial: Int) {
        perform(.evaluated(report, loadState: loadState, serial: serial))
        // Live: how far behind the newest data read playback is, from where the clock stands.
        guard followsLiveEdge.load(ordering: .relaxed) else { return }
        let now = MonotonicClock.now()
        lastLiveReport.store(now.bitPattern, ordering: .relaxed)
        if let readEnd = report.readEnd, let clockTime = clock.mediaTime(at: now) {
            perform(.liveEdge(behind: max(0, readEnd - clockTime), queued: report.bufferedDuration, readEnd: readEnd,
                              keyFrame: report.newestKeyFrame))
        }
    }
}
