import HPlayerKit

/// Carries out mpv's commands on the file playing and on the front end (its playlist, its
/// window, quitting): the IPC's requests and input.conf's bindings alike.
///
/// The program attaches each file's controller as it starts, and nil when it ends.
public final class CommandRunner: Sendable {
    private let current = Locked<PlayerControlling?>(nil)
    private let frontEnd: any CommandFrontEnd

    public init(frontEnd: any CommandFrontEnd) {
        self.frontEnd = frontEnd
    }

    /// The file playing from now on; nil between files.
    public func attach(_ controller: PlayerControlling?) {
        current.withLock { $0 = controller }
    }

    /// Carries out `command`; the reply's data: none (`.none`), null, or a value. Observing
    /// belongs to an IPC client, not here: `invalidParameter`.
    public func run(_ command: IPCCommand) -> Result<JSONValue??, IPCError> {
        let controller = current.withLock { $0 }
        switch command {
        case .loadFile(let url, let mode):
            let entry = frontEnd.load(url, mode: mode)
            return .success(.object(["playlist_entry_id": .number(Double(entry))]))
        case .loadList(let path, let mode):
            guard let (firstID, count) = frontEnd.loadList(path, mode: mode) else { return .failure(.commandFailed) }
            return .success(.object(["playlist_entry_id": .number(Double(firstID)), "num_entries": .number(Double(count))]))
        case .playlist(let request):
            return frontEnd.apply(request) ? .success(.some(.null)) : .failure(.commandFailed)
        case .set(let name, let value):
            guard let controller else { return .failure(.commandFailed) }
            return set(name, to: value, on: controller)
        case .add("chapter", let amount):
            guard let controller else { return .failure(.commandFailed) }
            // Clamped: a step past every chapter goes no further, and a huge number is no trap.
            let offset = Int(min(1e6, max(-1e6, amount)).rounded())
            return stepChapter(offset, on: controller) != nil ? .success(.some(.null)) : .failure(.commandFailed)
        case .add(let name, let amount), .multiply(let name, let amount):
            guard let controller, case .success(let value) = PlayerProperties.value(of: name, in: snapshot(of: controller)),
                  let number = value.number else { return .failure(.commandFailed) }
            let isAdding = if case .add = command { true } else { false }
            return set(name, to: .number(PlayerProperties.clamped(name, isAdding ? number + amount : number * amount)), on: controller)
        case .cycle("fullscreen", _):
            return frontEnd.toggleFullscreen() ? .success(.some(.null)) : .failure(.commandFailed)
        case .cycle(let name, let up):
            guard let controller else { return .failure(.commandFailed) }
            switch name {
            case "aid": controller.perform(.cycleAudioTrack)
            case "sid": controller.perform(.cycleSubtitleTrack(forward: up))
            case "loop-file": controller.perform(.toggleLoop)
            default:
                guard case .success(.bool(let on)) = PlayerProperties.value(of: name, in: snapshot(of: controller)) else {
                    return .failure(.commandFailed)
                }
                return set(name, to: .bool(!on), on: controller)
            }
            return .success(.some(.null))
        case .quit(let code):
            frontEnd.quit(code: code, savingPosition: false)
            return .success(.none)
        case .quitWatchLater(let code):
            frontEnd.quit(code: code, savingPosition: true)
            return .success(.none)
        case .screenshot(let withSubtitles):
            return frontEnd.screenshot(withSubtitles: withSubtitles) ? .success(.some(.null)) : .failure(.commandFailed)
        case .observeProperty, .unobserveProperty:
            return .failure(.invalidParameter)
        // mpv's idle-active: playback is over and the player waits (--idle); between two files
        // the next one is already the playlist's.
        case .getProperty("idle-active"):
            return .success(.some(.bool(controller == nil && frontEnd.view.playing == nil)))
        case .getProperty(let name) where controller == nil && name.hasPrefix("playlist"):
            var snapshot = PropertySnapshot(isPaused: false, position: 0, duration: nil, volume: 100, isMuted: false, isLooping: false,
                                            isEndReached: false, isPausedForCache: false, cacheDuration: 0, avsync: 0, droppedFrames: 0)
            snapshot.playlist = frontEnd.view
            return PlayerProperties.value(of: name, in: snapshot).map { .some($0) }
        case .getProperty(let name):
            guard let controller else { return .failure(.propertyUnavailable) }
            return PlayerProperties.value(of: name, in: snapshot(of: controller)).map { .some($0) }
        // With no file playing (--idle), the playlist still takes where to play.
        case .setProperty("playlist-pos", let value) where controller == nil:
            guard case .success(.playlistPosition(let index)) = PlayerProperties.change(setting: "playlist-pos", to: value) else {
                return .failure(.unsupportedFormat)
            }
            return frontEnd.apply(.play(index: index)) ? .success(.none) : .failure(.commandFailed)
        case .setProperty(let name, let value):
            guard let controller else { return .failure(.propertyUnavailable) }
            return PlayerProperties.change(setting: name, to: value).flatMap { change in
                do throws(IPCError) {
                    try apply(change, to: controller)
                    return .success(.none)
                } catch {
                    return .failure(error)
                }
            }
        case .frameStep(let forward):
            guard let controller else { return .failure(.commandFailed) }
            controller.perform(.stepFrame(forward: forward))
            return .success(.some(.null))
        case .seek(let target, let reference, let precision):
            guard let controller else { return .failure(.commandFailed) }
            let status = controller.player.status
            let position: Double
            switch reference {
            case .absolute: position = target
            case .relative: position = controller.position(in: status) + target
            case .absolutePercent, .relativePercent:
                guard let duration = status.duration else { return .failure(.commandFailed) }
                position = (reference == .relativePercent ? controller.position(in: status) : 0) + target / 100 * duration
            }
            let mode: SeekMode? = precision.map { $0 == .exact ? .exact : .keyframe }
            controller.seek(to: min(max(0, position), status.duration ?? .infinity), mode: mode)
            return .success(.some(.null))
        }
    }

    /// mpv's `set` and the steps of `add`, `multiply` and `cycle`: set_property, answered as a command.
    private func set(_ name: String, to value: JSONValue, on controller: PlayerControlling) -> Result<JSONValue??, IPCError> {
        do throws(IPCError) {
            try apply(try PlayerProperties.change(setting: name, to: value).get(), to: controller)
            return .success(.some(.null))
        } catch {
            return .failure(.commandFailed)
        }
    }

    private func apply(_ change: PropertyChange, to controller: PlayerControlling) throws(IPCError) {
        switch change {
        case .pause(let paused): if paused { controller.pause() } else { controller.play() }
        case .position(let seconds): controller.seek(to: max(0, seconds), mode: nil)
        case .volume(let level): controller.player.volume = level
        case .mute(let muted): controller.player.isMuted = muted
        case .loopFile(let looping): controller.player.isLooping = looping
        case .abLoopA(let a): controller.player.abLoop.a = a
        case .abLoopB(let b): controller.player.abLoop.b = b
        case .speed(let factor): controller.player.speed = factor
        case .streamRecord(""): controller.player.stopRecording()
        case .streamRecord(let path):
            // A path that cannot be recorded to fails the request, as mpv fails a property it cannot set.
            do { try controller.player.startRecording(to: path) } catch { throw .accessDenied }
        // A track the file lacks fails the request.
        case .audioTrack(let number):
            do { try controller.player.selectAudioTrack(number) } catch { throw .accessDenied }
        case .subtitleTrack(let number):
            do { try controller.player.selectSubtitleTrack(number) } catch { throw .accessDenied }
        case .secondarySubtitleTrack(let number):
            do { try controller.player.selectSecondarySubtitleTrack(number) } catch { throw .accessDenied }
        case .subtitleVisibility(let visible): controller.player.subtitlesVisible = visible
        case .subtitleDelay(let seconds): controller.player.subtitleDelay = seconds
        case .subtitleScale(let scale): controller.player.subtitleStyle.scale = scale
        case .subtitlePosition(let position): controller.player.subtitleStyle.position = position
        case .playlistPosition(let index): _ = frontEnd.apply(.play(index: index))
        case .chapter(let index):
            let chapters = controller.player.mediaInfo?.chapters ?? []
            guard !chapters.isEmpty else { throw .propertyUnavailable }
            // Past the last chapter is the next file, as mpv goes on. Exact, as mpv's chapter seeks.
            if index >= chapters.count {
                _ = frontEnd.apply(.next(force: true))
            } else {
                // Before the first chapter (-1) is the file's start.
                controller.seek(to: index < 0 ? 0 : max(0, chapters[index].start), mode: .exact)
            }
        }
    }

    /// mpv's `add chapter N` (PgUp and PgDn) on the file playing: the notice to show, as mpv's
    /// ("Chapter: (2) Title"), "" where it went on to the next file; nil for a file without chapters.
    public func stepChapter(_ offset: Int) -> String? {
        current.withLock { $0 }.flatMap { stepChapter(offset, on: $0) }
    }

    /// A step back from well into a chapter goes to its start; past the last chapter, to the
    /// next file. Exact, as mpv's chapter seeks: a chapter need not start on a key frame.
    private func stepChapter(_ offset: Int, on controller: PlayerControlling) -> String? {
        let chapters = controller.player.mediaInfo?.chapters ?? []
        switch MediaMetadata.chapterStep(offset, from: controller.position, in: chapters) {
        case nil:
            return nil
        case .pastEnd:
            _ = frontEnd.apply(.next(force: true))
            return ""
        case .fileStart:
            controller.seek(to: 0, mode: .exact)
            return "Chapter: (0)"
        case .chapter(let index):
            controller.seek(to: max(0, chapters[index].start), mode: .exact)
            return "Chapter: (\(index + 1)) " + (chapters[index].title ?? "")
        }
    }

    /// What mpv's properties read of the file playing; nil between files.
    public func snapshot() -> PropertySnapshot? {
        current.withLock { $0 }.map(snapshot(of:))
    }

    private func snapshot(of controller: PlayerControlling) -> PropertySnapshot {
        let player = controller.player
        // The player's state in one read (one lock): its values are of one moment.
        let status = player.status
        var snapshot = PropertySnapshot(status: status, wantsToPlay: controller.autoplay)
        snapshot.position = controller.position(in: status)
        snapshot.recordingPath = player.recordingPath ?? ""
        let info = status.mediaInfo
        let playing = status.playingStreams
        snapshot.audioTrack = (info?.streams(of: .audio) ?? []).firstIndex { playing.contains($0.index) }.map { $0 + 1 }
        snapshot.subtitleTrack = player.subtitleTrack
        snapshot.secondarySubtitleTrack = player.secondarySubtitleTrack
        snapshot.subtitlesVisible = player.subtitlesVisible
        snapshot.subtitleDelay = player.subtitleDelay
        (snapshot.subtitleScale, snapshot.subtitlePosition) = (player.subtitleStyle.scale, player.subtitleStyle.position)
        // Looked up only when a track is selected: a snapshot is taken at every observer tick.
        let hasTrack = snapshot.subtitleTrack != nil || snapshot.secondarySubtitleTrack != nil
        let shown = hasTrack ? player.presentedMediaPts.flatMap(player.shownSubtitle(atMediaPts:)) : nil
        if snapshot.secondarySubtitleTrack != nil { snapshot.secondarySubtitleText = shown?.secondaryText ?? "" }
        if snapshot.subtitleTrack != nil {
            let startTime = info?.startTime ?? 0
            snapshot.subtitleText = shown?.text ?? ""
            // A caption screen cleared is a cue of no text: nothing shows.
            let showing = shown?.cues.filter(\.showsAnything) ?? []
            snapshot.subtitleStart = showing.map(\.start).min().map { $0 - startTime }
            snapshot.subtitleEnd = showing.map(\.end).max().flatMap { $0.isFinite ? $0 - startTime : nil }
        }
        snapshot.playlist = frontEnd.view
        let playingEntry = snapshot.playlist.playing.flatMap { snapshot.playlist.entries.indices.contains($0) ? snapshot.playlist.entries[$0] : nil }
        snapshot.path = playingEntry?.url ?? info?.url ?? ""
        snapshot.tags = info?.tags ?? []
        snapshot.chapters = info?.chapters ?? []
        snapshot.tracks = TrackListEntry.entries(streams: info?.streams ?? [], playing: playing,
                                                 subtitles: player.subtitleTracks.map(\.description), shownSubtitle: player.subtitleTrack,
                                                 variantBandwidth: snapshot.hlsBitrate, pictureSize: snapshot.videoSize)
        return snapshot
    }
}

/// What commands ask of the program around the player: its playlist, quitting, a screenshot,
/// the window.
public protocol CommandFrontEnd: IPCPlaylist {
    /// Ends playback with this exit code; `savingPosition`, remembering where the file stands
    /// (mpv's quit-watch-later).
    func quit(code: Int32, savingPosition: Bool)
    /// Writes the frame on screen to a PNG, with the subtitles on it or without; false when
    /// there is none.
    func screenshot(withSubtitles: Bool) -> Bool
    /// false without a window.
    func toggleFullscreen() -> Bool
}
