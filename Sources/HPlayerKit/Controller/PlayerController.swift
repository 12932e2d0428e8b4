/// What an app or a window talks to: autoplay, a seek asked before the media is ready, controls.
/// Thread-safe: call it from any thread but an output's render or refresh callback.
public protocol PlayerControlling: AnyObject, Sendable {
    /// The player controlled, which it owns: read its state and events from it.
    var player: MediaPlayer { get }
    /// Play as soon as the media is prepared. play() and pause() set it.
    var autoplay: Bool { get }
    /// Where playback is; before the media is prepared, where a seek asked then will start it.
    var position: Double { get }
    /// `position`, by `status` (the player's, read once by the caller with what else it reads).
    func position(in status: PlayerStatus) -> Double
    /// Opens the media (the player's `prepare`); with `autoplay`, it plays once prepared.
    func load()
    /// Plays, and sets `autoplay`; before the media is prepared it only sets `autoplay`.
    func play()
    /// Pauses, and clears `autoplay`, so that the media does not start once prepared.
    func pause()
    /// A seek to `position` seconds from the start; before the media is prepared it is kept
    /// (the last one wins) and made as it opens. `mode` nil: the player's default.
    func seek(to position: Double, mode: SeekMode?)
    /// A seek to a start position: a percentage waits for the duration, once prepared.
    func seek(to start: StartPosition, mode: SeekMode?)
    /// Carries out a command from a key or a click; returns the notice to show for it, if any.
    /// Fullscreen, screenshots and quit belong to the window and the program, and are left to them.
    @discardableResult
    func perform(_ command: PlayerCommand) -> String?
    /// Closes the player: playback stops, every thread is joined, every event stream ends. Not
    /// from an output's render or refresh callback, whose thread it joins.
    func close()
}

/// The player controller: owns a player and applies what was asked before it was prepared.
///
/// A seek asked before the media is prepared is kept by the player (the last one wins) and made
/// as it opens, and `position` says where it will start; play and pause update autoplay, so a
/// paused player is never resumed by it.
public final class PlayerController: PlayerControlling, @unchecked Sendable {
    public let player: MediaPlayer
    private let lock = ConditionLock()
    private var autoplayValue: Bool
    private var isPrepared = false
    /// How many `prepared` events have been handled to the end (their seek and play applied).
    private(set) var preparedHandled: Int {
        get { lock.withLock { preparedHandledCount } }
        set { lock.withLock { preparedHandledCount = newValue } }
    }
    private var preparedHandledCount = 0
    /// The last seek asked before the media was prepared: where `position` says playback will start.
    private var pendingStart: StartPosition?
    private var observation: Task<Void, Never>?

    /// Starts listening to `player`'s events at once, so no `prepared` is missed; call `load`
    /// to open the media.
    public init(player: MediaPlayer, autoplay: Bool = true) {
        self.player = player
        autoplayValue = autoplay
        let events = player.events()
        observation = Task { [weak self] in
            for await event in events {
                guard case .prepared = event else { continue }
                self?.playerDidPrepare()
            }
        }
    }

    deinit { observation?.cancel() }

    public var autoplay: Bool { lock.withLock { autoplayValue } }

    public var position: Double { position(in: player.status) }

    public func position(in status: PlayerStatus) -> Double {
        let queued = lock.withLock { isPrepared ? nil : pendingStart }
        return queued?.seconds(duration: nil) ?? status.position
    }

    public func load() { player.prepare() }

    public func play() {
        let prepared = lock.withLock {
            autoplayValue = true
            return isPrepared
        }
        if prepared { player.play() }
    }

    public func pause() {
        lock.withLock { autoplayValue = false }
        player.pause()
    }

    public func seek(to position: Double, mode: SeekMode? = nil) {
        seek(to: .seconds(position), mode: mode)
    }

    public func seek(to start: StartPosition, mode: SeekMode? = nil) {
        lock.withLock { if !isPrepared { pendingStart = start } }
        // The player keeps one asked before the media is open and makes it as it opens, before
        // it shows a frame: applied here on `prepared`, the opening's first frame could show first.
        player.seek(to: start, mode: mode)
    }

    @discardableResult
    public func perform(_ command: PlayerCommand) -> String? {
        switch command {
        case .togglePause:
            // What the person last asked for decides, not the state of the moment (seeking, loading).
            let resume = !autoplay
            if resume { play() } else { pause() }
            return resume ? "Playing" : "Paused"
        case .seek(let offset):
            return seekNotice(to: position + offset)
        case .seekToFraction(let fraction):
            guard let duration = player.status.duration else { return nil }
            return seekNotice(to: fraction * duration)
        case .toggleLoop:
            player.isLooping.toggle()
            return player.isLooping ? "Loop on" : "Loop off"
        case .cycleABLoop:
            player.abLoop = player.abLoop.cycled(at: player.status.position)
            return player.abLoop.notice
        case .stepFrame(let forward):
            lock.withLock { autoplayValue = false }
            player.stepFrame(forward: forward)
            return nil
        case .scaleSpeed(let factor):
            player.speed = PlaybackSpeed.scaled(player.speed, by: factor)
            return speedNotice
        case .resetSpeed:
            player.speed = 1
            return speedNotice
        case .cycleAudioTrack:
            let audio = player.mediaInfo?.streams(of: .audio) ?? []
            let playing = player.playingStreams
            guard let current = audio.firstIndex(where: { playing.contains($0.index) }) else { return "No audio" }
            let next = (current + 1) % audio.count
            do {
                try player.selectAudioTrack(next + 1)
            } catch {
                return error.reason
            }
            let stream = audio[next]
            return "Audio \(next + 1)/\(audio.count)" + (stream.language.map { " [\($0)]" } ?? "") + (stream.title.map { " '\($0)'" } ?? "")
        case .cycleSubtitleTrack(let forward):
            return cycleSubtitles(forward: forward)
        case .toggleSubtitles:
            player.subtitlesVisible.toggle()
            return player.subtitlesVisible ? "Subtitles visible" : "Subtitles hidden"
        case .changeSubtitleDelay(let seconds):
            // Rounded to the millisecond, so that steps of 0.1 s come back to 0 exactly.
            player.subtitleDelay = ((player.subtitleDelay + seconds) * 1000).rounded() / 1000
            return "Sub delay: \(Int((player.subtitleDelay * 1000).rounded())) ms"
        case .changeSubtitleScale(let step):
            let now = player.subtitleStyle
            // Kept to tenths, so that steps of 0.1 come back to 1 exactly.
            let style = SubtitleStyle(scale: ((now.scale + step) * 10).rounded() / 10, position: now.position, font: now.font,
                                      fontSize: now.fontSize, assOverride: now.assOverride)
            player.subtitleStyle = style
            return "Sub scale: \(DecimalText.fixed(style.scale, places: 1))"
        case .changeSubtitlePosition(let step):
            let now = player.subtitleStyle
            let style = SubtitleStyle(scale: now.scale, position: now.position + step, font: now.font, fontSize: now.fontSize,
                                      assOverride: now.assOverride)
            player.subtitleStyle = style
            return "Sub position: \(Int(style.position.rounded()))/100"
        case .toggleMute:
            player.isMuted.toggle()
            return player.isMuted ? "Mute" : "Volume \(player.volume)%"
        case .changeVolume(let points):
            player.volume = min(100, max(0, player.volume + points))
            player.isMuted = false
            return "Volume \(player.volume)%"
        }
    }

    private var speedNotice: String { "Speed " + PlaybackSpeed.text(player.speed) }

    /// As mpv's j and J: through the tracks that can be shown, then none, then round again.
    private func cycleSubtitles(forward: Bool) -> String {
        let tracks = player.subtitleTracks
        // The secondary track is not one to go to: a track is shown in one place at a time.
        let secondary = player.secondarySubtitleTrack
        let shown = tracks.indices.filter { tracks[$0].unsupportedReason == nil && $0 + 1 != secondary }.map { $0 + 1 }
        guard !shown.isEmpty else { return "No subtitles" }
        let order: [Int?] = [nil] + shown
        let current = order.firstIndex(of: player.subtitleTrack) ?? 0
        let next = order[(current + (forward ? 1 : order.count - 1)) % order.count]
        do {
            try player.selectSubtitleTrack(next)
        } catch {
            return error.reason
        }
        guard let next else { return "Subtitles off" }
        let description = tracks[next - 1].description
        return "Subtitles \(next)/\(tracks.count)" + (description.language.map { " [\($0)]" } ?? "")
            + ((description.title ?? description.fileName).map { " '\($0)'" } ?? "")
    }

    private func seekNotice(to position: Double) -> String {
        let duration = player.status.duration
        let target = min(max(0, position), duration ?? .infinity)
        seek(to: target, mode: nil)
        return "Seek " + TimeText.clock(target) + (duration.map { " / " + TimeText.clock($0) } ?? "")
    }

    public func close() {
        observation?.cancel()
        player.close()
    }

    private func playerDidPrepare() {
        let autoplay = lock.withLock {
            isPrepared = true
            pendingStart = nil
            return autoplayValue
        }
        if autoplay { player.play() }
        preparedHandled += 1
    }
}
