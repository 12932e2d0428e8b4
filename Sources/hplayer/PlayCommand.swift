import ArgumentParser
import Dispatch
import Foundation
import Glibc
import HPlayerKit
import HPlayerSDL

/// `hplayer play URL` (and `hplayer URL`): plays in a window with sound, like mpv or ffplay,
/// with a status line; without a display or a sound device, it says so and plays on without.
struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play", abstract: "Play a file or URL (the default command).",
        discussion: """
            Keys (in the window, or in the terminal): space or p pause, left/right seek 5 s, up/down seek 60 s, \
            L loop on/off, m mute, 9/0 volume down/up, f fullscreen, q or Esc quit. A click or drag on the progress bar seeks.
            """)

    @Argument(help: "The file or URL.") var url: String

    @Option(name: .customLong("vo"), help: "Video output: sdl (a window, the default), null, or record:DIR to log each presented frame to DIR/video.tsv.")
    var videoOutput: OutputChoice?

    @Option(name: .customLong("ao"), help: "Audio output: sdl (the sound device, the default), null, or record:DIR to write DIR/audio.wav and DIR/audio.tsv.")
    var audioOutput: OutputChoice?

    @Option(help: "Start at this many seconds.") var start: Double?
    @Flag(help: "Loop the file: at the end, go on from the start with no gap.") var loop = false
    @Flag(name: .customLong("exact-seek"), help: "Seek to the exact time, not the key frame before it.") var exactSeek = false
    @Flag(help: "Present every frame as soon as it is decoded, with no clock.") var untimed = false
    @Flag(name: .customLong("no-status"), help: "No status line.") var noStatus = false
    @Option(help: "Window size and place, as mpv: WxH, +X+Y or WxH+X+Y.") var geometry: String?
    @Flag(name: .customLong("no-border"), help: "A window without decorations.") var noBorder = false
    @Flag(help: "Start in fullscreen.") var fullscreen = false
    @Option(help: "The window title (the file name when not given).") var title: String?
    @OptionGroup var common: CommonOptions

    func validate() throws {
        if let start, !(start >= 0) {
            throw CommandLineFailure.usage(input: "--start", reason: "expected seconds >= 0, got \(start)")
        }
        if let geometry, WindowGeometry(geometry) == nil {
            throw CommandLineFailure.usage(input: "--geometry", reason: "expected WxH, +X+Y or WxH+X+Y, got '\(geometry)'")
        }
    }

    func run() async throws { try await play() }

    func play() async throws {
        common.bootstrapLogging()
        var options = PlayerOptions()
        options.source.isLooping = loop
        options.seekMode = exactSeek ? .exact : .keyframe
        options.isUntimed = untimed
        let session = PlaybackSession()

        var audio = audioOutput ?? .sdl
        if audio == .sdl, let reason = SDLAudioOutput.unavailableReason() {
            StatusLine.notice("no sound device (\(reason)): playing without sound")
            options.source.mediaKinds.remove(.audio)
            audio = .null
        }
        var window: SDLWindow?
        if (videoOutput ?? .sdl) == .sdl {
            let windowOptions = WindowOptions(title: title ?? URL(fileURLWithPath: url).lastPathComponent,
                                              geometry: geometry.flatMap(WindowGeometry.init), isBorderless: noBorder,
                                              isFullscreen: fullscreen)
            do {
                window = try SDLWindow(options: windowOptions, onCommand: session.handle, status: session.status)
            } catch {
                StatusLine.notice("no display (\(error.reason)): playing without picture")
            }
        }
        let player = Player(url: url, options: options,
                            audioOutput: audio.makeAudioOutput(paced: !untimed),
                            videoOutput: window.map(SDLVideoOutput.init) ?? (videoOutput ?? .null).makeVideoOutput(paced: !untimed))
        let controller = PlayerController(player: player)
        session.attach(controller: controller, window: window)
        let events = player.events()
        if let start { controller.seek(to: start, mode: nil) }

        let signals = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        signal(SIGINT, SIG_IGN)
        signals.setEventHandler { session.interrupt() }
        signals.resume()
        let keys = TerminalKeys { key in KeyBindings.command(for: key).map(session.handle) }
        defer { keys?.stop() }

        let statusLine = noStatus ? nil : StatusLine()
        var statusTask: Task<Void, Never>?
        controller.load()
        var failure: MediaError?
        for await event in events {
            switch event {
            case .prepared:
                FFmpegLineGate.open()
                statusTask = Task {
                    while !Task.isCancelled {
                        statusLine?.update(player.status)
                        try? await Task.sleep(nanoseconds: 250_000_000)
                    }
                }
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
        window?.close()
        signals.cancel()
        if session.wasInterrupted { throw ExitCode(130) }
        if let failure { throw CommandLineFailure.media(failure) }
    }
}

/// What keys, clicks and signals act on, once the player exists (the window is made first).
final class PlaybackSession: @unchecked Sendable {
    private let state = Locked<(controller: PlayerControlling?, window: SDLWindow?, interrupted: Bool)>((nil, nil, false))

    func attach(controller: PlayerControlling, window: SDLWindow?) {
        state.withLock { $0.controller = controller; $0.window = window }
    }

    @Sendable func handle(_ command: PlayerCommand) {
        let (controller, window) = state.withLock { ($0.controller, $0.window) }
        guard let controller else { return }
        if command == .quit {
            controller.player.close()  // ends the events: the program exits with 0
        } else if let notice = controller.perform(command) {
            window?.showNotice(notice)
        }
    }

    @Sendable func status() -> PlayerStatus? {
        state.withLock { $0.controller?.player.status }
    }

    func interrupt() {
        let controller = state.withLock { state -> PlayerControlling? in
            state.interrupted = true
            return state.controller
        }
        controller?.player.close()
    }

    var wasInterrupted: Bool { state.withLock { $0.interrupted } }
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
