import ArgumentParser
import Dispatch
import FoundationEssentials
import Glibc
import HPlayerIPC
import HPlayerKit
import HPlayerSDL
import Logging

/// `hplayer play URL` (and `hplayer URL`): plays in a window with sound, like mpv or ffplay,
/// with a status line; without a display or a sound device, it says so and plays on without.
struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play", abstract: "Play a file or URL (the default command).",
        discussion: """
            Keys (in the window, or in the terminal): space or p pause, left/right seek 5 s, up/down seek 60 s, \
            L loop on/off, l set A, set B, clear the A-B loop, . and , step a frame forward and back, \
            [ ] speed down/up by 1.1, { } halve/double it, Backspace speed 1, s screenshot, \
            # next soundtrack, j/J next/previous subtitles, v subtitles on/off, \
            m mute, 9/0 volume down/up, f fullscreen, q or Esc quit, Q quit and remember the position \
            (--resume starts there). A click or drag on the progress bar seeks.
            """)

    @Argument(help: "The file or URL.") var url: String

    @Option(name: .customLong("vo"), help: "Video output: sdl (a window, the default), null, or record:DIR to log each presented frame to DIR/video.tsv.")
    var videoOutput: OutputChoice?

    @Option(name: .customLong("ao"), help: "Audio output: sdl (the sound device, the default), null, or record:DIR to write DIR/audio.wav and DIR/audio.tsv.")
    var audioOutput: OutputChoice?

    @Option(help: "Start here: seconds, [[hh:]mm:]ss or a percentage (25%).") var start: StartPosition?
    @Flag(help: "Start where Q (or q with --save-position-on-quit) left this file.") var resume = false
    @Flag(name: .customLong("save-position-on-quit"), help: "q remembers the position too, as Q does.") var savePositionOnQuit = false
    @Flag(name: .customLong("no-video"), help: "Play the sound only; the picture is not even decoded.") var noVideo = false
    @Flag(name: .customLong("no-audio"), help: "Play the picture only; the sound is not even decoded.") var noAudio = false
    @Option(help: "The video track to play, numbered from 1 (as mpv's --vid).") var vid: Int?
    @Option(help: "The audio track to play, numbered from 1 (as mpv's --aid).") var aid: Int?
    @Option(help: "The subtitle track to show, numbered from 1 (the file's, then the --sub-file ones), or no (as mpv's --sid).")
    var sid: SubtitleChoice = .auto
    @Option(name: .customLong("sub-file"), help: "Show the subtitles of this file (.srt, .vtt, .ass); may be given more than once, the last is shown.")
    var subtitleFiles: [String] = []
    @Flag(help: "Loop the file: at the end, go on from the start with no gap.") var loop = false
    @Option(name: .customLong("ab-loop-a"), help: "Repeat from here (seconds or [[hh:]mm:]ss) to --ab-loop-b.") var abLoopA: StartPosition?
    @Option(name: .customLong("ab-loop-b"), help: "Where the A-B loop goes back to --ab-loop-a.") var abLoopB: StartPosition?
    @Flag(name: .customLong("exact-seek"), help: "Seek to the exact time, not the key frame before it.") var exactSeek = false
    @Flag(help: "Present every frame as soon as it is decoded, with no clock.") var untimed = false
    @Option(help: "Play at this speed, 0.25 to 4; the sound keeps its pitch.") var speed = 1.0
    @Option(name: .customLong("screenshot-dir"), help: "Where s writes its PNGs (the current folder when not given).") var screenshotDirectory = ""
    @Flag(name: .customLong("no-status"), help: "No status line.") var noStatus = false
    @Option(help: "Window size and place, as mpv: WxH, +X+Y or WxH+X+Y.") var geometry: String?
    @Flag(name: .customLong("no-border"), help: "A window without decorations.") var noBorder = false
    @Flag(help: "Start in fullscreen.") var fullscreen = false
    @Option(help: "The window title (the file name when not given).") var title: String?
    @Option(name: .customLong("record-file"), help: "Record the first file as it plays, from where playback starts until quit, its packets copied as they are (no re-encoding), to this .mp4, .mov, .mkv or .ts file (as mpv's --stream-record).")
    var recordFile: String?
    @Option(name: .customLong("input-ipc-server"), help: "Listen at this Unix socket for mpv's JSON IPC (loadfile, seek, get_property, set_property, observe_property, quit).")
    var ipcServer: String?
    @Option(name: .customLong("stats-dir"), help: "Write DIR/events.tsv (first frame, buffering, variant, seek, retry, error, end) and DIR/network.tsv (a line per HTTP request).")
    var statsDirectory: String?
    @OptionGroup(title: "Network") var network: NetworkArguments
    @OptionGroup(title: "Read-ahead") var readAhead: ReadAheadArguments
    @OptionGroup var common: CommonOptions

    /// Checked as play starts rather than in ArgumentParser's validate(), which wraps what it
    /// throws in a message of its own: a usage error names the option, as every error names its input.
    private func checkUsage() throws(CommandLineFailure) {
        for (name, point) in [("--ab-loop-a", abLoopA), ("--ab-loop-b", abLoopB)] {
            if case .fraction = point { throw CommandLineFailure.usage(input: name, reason: "expected seconds or [[hh:]mm:]ss") }
        }
        if let geometry, WindowGeometry(geometry) == nil {
            throw CommandLineFailure.usage(input: "--geometry", reason: "expected WxH, +X+Y or WxH+X+Y, got '\(geometry)'")
        }
    }

    func run() async throws { try await play() }

    func play() async throws {
        try checkUsage()
        common.bootstrapLogging()
        var options = PlayerOptions()
        options.source.isLooping = loop
        try network.apply(to: &options.source.network)
        try readAhead.apply(to: &options.source)
        var stats: StatsDirectory?
        if let statsDirectory { stats = try StatsDirectory(path: statsDirectory) }
        options.source.network.monitor = NetworkMonitor(onEvent: stats.map { stats in { @Sendable event in stats.note(event) } })
        options.seekMode = exactSeek ? .exact : .keyframe
        options.isUntimed = untimed
        options.abLoop = ABLoop(a: abLoopA?.seconds(duration: nil), b: abLoopB?.seconds(duration: nil))
        if noVideo { options.source.mediaKinds.remove(.video) }
        if noAudio { options.source.mediaKinds.remove(.audio) }
        options.source.videoTrack = vid
        options.source.audioTrack = aid
        options.subtitleTrack = sid
        if let refusal = PlaybackSpeed.refusal(of: speed) {
            StatusLine.notice("warning: --speed \(speed): \(refusal): playing at 1x")
        } else {
            options.speed = speed
        }
        let session = PlaybackSession(watchLater: WatchLater(), savesPositionOnQuit: savePositionOnQuit,
                                      screenshots: ScreenshotTaker(folder: screenshotDirectory, videoTrack: vid,
                                                                   network: options.source.network))
        let playlist = Playlist(url)

        var audio = audioOutput ?? .sdl
        if !noAudio, audio == .sdl, let reason = SDLAudioOutput.unavailableReason() {
            StatusLine.notice("no sound device (\(reason)): playing without sound")
            options.source.mediaKinds.remove(.audio)
            audio = .null
        }
        var window: SDLWindow?
        if !noVideo, (videoOutput ?? .sdl) == .sdl {
            let windowOptions = WindowOptions(title: title ?? URL(fileURLWithPath: url).lastPathComponent,
                                              geometry: geometry.flatMap(WindowGeometry.init), isBorderless: noBorder,
                                              isFullscreen: fullscreen)
            do {
                window = try SDLWindow(options: windowOptions, onCommand: session.handle, status: session.status)
            } catch {
                StatusLine.notice("no display (\(error.reason)): playing without picture")
            }
        }
        defer { window?.close() }
        var remote: IPCRemote?
        if let ipcServer {
            do {
                remote = try IPCRemote(path: ipcServer, onLoadFile: { url, mode in
                    let entry = playlist.add(url, mode: mode)
                    if mode == .replace { session.replace(before: entry) }
                    return entry
                }, onQuit: session.quit)
            } catch {
                throw CommandLineFailure.usage(input: "--input-ipc-server", reason: "\(error.path): \(error.reason)")
            }
        }
        defer { remote?.close() }

        // Ctrl-C exits 130; SIGTERM, SIGHUP and SIGQUIT exit 4, as mpv's. Each is a quit, so the
        // terminal is restored on the way out. (Ignored as signals, they no longer kill the process
        // or reach Swift's crash handler, which takes SIGQUIT for a crash.)
        let signals = [(SIGINT, Int32(130)), (SIGTERM, 4), (SIGHUP, 4), (SIGQUIT, 4)].map { number, code in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            signal(number, SIG_IGN)
            source.setEventHandler { session.interrupt(exitCode: code) }
            source.resume()
            return source
        }
        defer { signals.forEach { $0.cancel() } }
        // A recording's named pipe whose reader has gone is a write error that stops the
        // recording, not a signal that ends the player.
        signal(SIGPIPE, SIG_IGN)
        let keys = TerminalKeys { key in KeyBindings.command(for: key).map(session.handle) }
        defer { keys?.stop() }

        var failure: MediaError?
        while !session.isQuitting, let entry = playlist.next() {
            if let failure { StatusLine.notice("error: \(failure.input): \(failure.reason)") }
            let player = Player(url: entry.url, options: options,
                                audioOutput: audio.makeAudioOutput(paced: !untimed),
                                videoOutput: window.map(SDLVideoOutput.init) ?? (videoOutput ?? .null).makeVideoOutput(paced: !untimed))
            // A subtitle file that cannot be read is told, and playback goes on without it.
            for path in subtitleFiles {
                do { try player.addSubtitleFile(path) } catch { StatusLine.notice("error: \(error.input): \(error.reason)") }
            }
            let controller = PlayerController(player: player)
            session.attach(controller: controller, entryID: entry.id, url: entry.url, window: window)
            remote?.begin(controller: controller, entryID: entry.id)
            // A path that cannot be recorded to is told, and playback goes on.
            if entry.id == 1, let recordFile {
                do { try player.startRecording(to: recordFile) } catch { Log.command.warning("\(error)") }
            }
            var startAt = entry.id == 1 ? start : nil
            if resume, startAt == nil, let saved = session.watchLater.takePosition(for: entry.url) { startAt = .seconds(saved) }
            failure = await play(controller, startingAt: startAt, stats: stats)
            let reason = session.isQuitting ? "quit" : session.wasFileStopped ? "stop" : failure != nil ? "error" : "eof"
            stats?.noteEnd(reason: reason)
            await remote?.end(entryID: entry.id, reason: reason, error: failure?.reason)
        }
        if let code = session.interruptedExitCode { throw ExitCode(code) }
        if let code = session.quitCode, code != 0 { throw ExitCode(code) }
        if let failure, !session.isQuitting { throw CommandLineFailure.media(failure) }
        if let failure = session.positionNotSaved { throw CommandLineFailure.media(failure) }
    }

    /// Plays one file to its end, its error, or until it is stopped; returns the error, if any.
    private func play(_ controller: PlayerController, startingAt start: StartPosition?, stats: StatsDirectory?) async -> MediaError? {
        let player = controller.player
        let events = player.events()
        if let start { controller.seek(to: start, mode: .exact) }  // an absolute position: exact, as mpv
        let statusLine = noStatus ? nil : StatusLine()
        var statusTask: Task<Void, Never>?
        controller.load()
        var failure: MediaError?
        for await event in events {
            stats?.note(event)
            switch event {
            case .prepared(let info):
                FFmpegLineGate.open()
                if !common.quiet {
                    let files = player.subtitleTracks.compactMap { $0.description.path == nil ? nil : $0.description }
                    print(TrackList.lines(for: info, playing: player.playingStreams, externalSubtitles: files,
                                          shownSubtitle: player.subtitleTrack).joined(separator: "\n"))
                }
                statusTask = Task {
                    while !Task.isCancelled {
                        statusLine?.update(player.status)
                        try? await Task.sleep(nanoseconds: 250_000_000)
                    }
                }
            case .started:
                Log.command.info("playback restart complete")
            case .finished(let error):
                failure = error
            default:
                continue
            }
            if case .finished = event { break }
        }
        statusTask?.cancel()
        if failure == nil { statusLine?.update(player.status, final: true) }
        controller.close()
        // Without this, resident memory creeps up over many files (scripts/soak.py: +32 MiB over
        // 1,000 loadfile replacements, with the heap itself flat).
        FreeMemory.release()
        return failure
    }
}

/// What keys, clicks, signals and the IPC act on: the file playing now (the window is made first),
/// and why it ended.
final class PlaybackSession: Sendable {
    let watchLater: WatchLater
    private let savesPositionOnQuit: Bool
    private let screenshots: ScreenshotTaker
    private struct State {
        var controller: PlayerControlling?
        var url = ""
        var window: SDLWindow?
        var positionNotSaved: MediaError?
        /// The exit code of the signal that ended playback.
        var interruptedExitCode: Int32?
        var quitCode: Int32?
        var fileStopped = false
        /// The playlist entry playing (or about to), and the newest one a `loadfile replace` put
        /// first: every entry before that one is stopped, whether it plays already or not yet.
        var entryID = 0
        var replacedBefore = 0
    }

    private let state = Locked(State())

    init(watchLater: WatchLater, savesPositionOnQuit: Bool, screenshots: ScreenshotTaker) {
        self.watchLater = watchLater
        self.savesPositionOnQuit = savesPositionOnQuit
        self.screenshots = screenshots
    }

    /// The file of playlist entry `entryID` is about to play; one replaced already is stopped at once.
    func attach(controller: PlayerControlling, entryID: Int, url: String, window: SDLWindow?) {
        let isReplaced = state.withLock {
            $0.controller = controller
            $0.entryID = entryID
            $0.url = url
            $0.window = window
            $0.fileStopped = entryID < $0.replacedBefore
            return $0.fileStopped
        }
        if isReplaced { controller.player.close() }
    }

    @Sendable func handle(_ command: InputCommand) {
        let (controller, window) = state.withLock { ($0.controller, $0.window) }
        switch command {
        case .quitSavingPosition:
            rememberPosition()
            quit(0)
        case .quit:
            if savesPositionOnQuit { rememberPosition() }
            quit(0)
        case .screenshot:
            let url = state.withLock { $0.url }
            screenshots.take(url: url, mediaPts: controller?.player.presentedMediaPts) { notice in window?.showNotice(notice) }
        case .toggleFullscreen:
            break  // the window's own: it never sends it here
        case .player(let command):
            if let notice = controller?.perform(command) { window?.showNotice(notice) }
        }
    }

    /// Remembers where the file playing stands, for `--resume`; a failure is told at exit.
    private func rememberPosition() {
        let (controller, url) = state.withLock { ($0.controller, $0.url) }
        guard let controller else { return }
        do {
            try watchLater.save(position: controller.player.status.position, for: url)
        } catch {
            state.withLock { $0.positionNotSaved = error }
        }
    }

    @Sendable func status() -> PlayerStatus? {
        state.withLock { $0.controller?.player.status }
    }

    /// Ends the file playing (its events end) and the playlist with it.
    @Sendable func quit(_ code: Int32) {
        let controller = state.withLock { state -> PlayerControlling? in
            state.quitCode = state.quitCode ?? code
            return state.controller
        }
        controller?.player.close()
    }

    /// A `loadfile replace` put entry `entryID` first: the file playing, or about to, stops; after
    /// the reply, as mpv's (the old file's end-file follows it). Decided under the lock, so a file
    /// that the playlist loop starts at that moment is stopped by `attach` instead.
    func replace(before entryID: Int) {
        let stopping = state.withLock { state -> PlayerControlling? in
            state.replacedBefore = max(state.replacedBefore, entryID)
            guard state.entryID < entryID, !state.fileStopped, let controller = state.controller else { return nil }
            state.fileStopped = true
            return controller
        }
        if let stopping { DispatchQueue.global().async { stopping.player.close() } }
    }

    func interrupt(exitCode: Int32) {
        state.withLock { $0.interruptedExitCode = $0.interruptedExitCode ?? exitCode }
        quit(exitCode)
    }

    var interruptedExitCode: Int32? { state.withLock { $0.interruptedExitCode } }
    var isQuitting: Bool { state.withLock { $0.quitCode != nil } }
    var quitCode: Int32? { state.withLock { $0.quitCode } }
    var wasFileStopped: Bool { state.withLock { $0.fileStopped } }
    var positionNotSaved: MediaError? { state.withLock { $0.positionNotSaved } }
}

extension SubtitleChoice: ExpressibleByArgument {
    public init?(argument: String) {
        switch argument {
        case "auto": self = .auto
        case "no": self = .off
        default:
            guard let number = Int(argument), number > 0 else { return nil }
            self = .number(number)
        }
    }
}

extension StartPosition: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}

/// `sdl`, `null` or `record:DIR`.
enum OutputChoice: ExpressibleByArgument, Equatable {
    case sdl
    case null
    case record(directory: String)

    init?(argument: String) {
        if argument == "sdl" {
            self = .sdl
        } else if argument == "null" {
            self = .null
        } else if argument.hasPrefix("record:"), argument.count > "record:".count {
            self = .record(directory: String(argument.dropFirst("record:".count)))
        } else {
            return nil
        }
    }

    /// The output for a choice that needs no window (sdl's window is made by the command).
    func makeVideoOutput(paced: Bool) -> VideoOutput {
        switch self {
        case .sdl, .null: return NullVideoOutput(paced: paced)
        case .record(let directory): return RecordingVideoOutput(directory: directory, paced: paced)
        }
    }

    func makeAudioOutput(paced: Bool) -> AudioOutput {
        switch self {
        case .sdl: return SDLAudioOutput()
        case .null: return NullAudioOutput(paced: paced)
        case .record(let directory): return RecordingAudioOutput(directory: directory, paced: paced)
        }
    }
}
