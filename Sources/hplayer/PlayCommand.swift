import ArgumentParser
import Dispatch
import Glibc
import HPlayerKit

/// `hplayer play URL` (and `hplayer URL`): plays to the chosen outputs with a status line.
struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play", abstract: "Play a file or URL (the default command).")

    @Argument(help: "The file or URL.") var url: String

    @Option(name: .customLong("vo"), help: "Video output: null, or record:DIR to log each presented frame to DIR/video.tsv.")
    var videoOutput: OutputChoice?

    @Option(name: .customLong("ao"), help: "Audio output: null, or record:DIR to write DIR/audio.wav and DIR/audio.tsv.")
    var audioOutput: OutputChoice?

    @Option(help: "Start at this many seconds.") var start: Double?
    @Flag(help: "Loop the file: at the end, go on from the start with no gap.") var loop = false
    @Flag(name: .customLong("exact-seek"), help: "Seek to the exact time, not the key frame before it.") var exactSeek = false
    @Flag(help: "Present every frame as soon as it is decoded, with no clock.") var untimed = false
    @Flag(name: .customLong("no-status"), help: "No status line.") var noStatus = false
    @OptionGroup var common: CommonOptions

    func validate() throws {
        if let start, !(start >= 0) {
            throw CommandLineFailure.usage(input: "--start", reason: "expected seconds >= 0, got \(start)")
        }
    }

    func run() async throws { try await play() }

    func play() async throws {
        common.bootstrapLogging()
        var options = PlayerOptions()
        options.source.isLooping = loop
        options.seekMode = exactSeek ? .exact : .keyframe
        options.isUntimed = untimed
        let video = videoOutput ?? .null
        let audio = audioOutput ?? .null
        let player = Player(url: url, options: options,
                            audioOutput: audio.makeAudioOutput(paced: !untimed),
                            videoOutput: video.makeVideoOutput(paced: !untimed))
        let controller = PlayerController(player: player)
        let events = player.events()
        if let start { controller.seek(to: start, mode: nil) }

        let interrupted = Locked(false)
        let signals = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        signal(SIGINT, SIG_IGN)
        signals.setEventHandler {
            interrupted.withLock { $0 = true }
            player.close()
        }
        signals.resume()

        let statusLine = noStatus ? nil : StatusLine()
        var statusTask: Task<Void, Never>?

        controller.load()
        var failure: MediaError?
        for await event in events {
            switch event {
            case .prepared:
                FFmpegLineGate.open()
                if videoOutput == nil || audioOutput == nil {
                    StatusLine.notice("no window or sound output in this build yet: playing to the null outputs (--vo/--ao record:DIR records)")
                }
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
        signals.cancel()
        if interrupted.withLock({ $0 }) { throw ExitCode(130) }
        if let failure { throw CommandLineFailure.media(failure) }
    }
}

/// `null` or `record:DIR`.
enum OutputChoice: ExpressibleByArgument, Equatable {
    case null
    case record(directory: String)

    init?(argument: String) {
        if argument == "null" {
            self = .null
        } else if argument.hasPrefix("record:"), argument.count > "record:".count {
            self = .record(directory: String(argument.dropFirst("record:".count)))
        } else {
            return nil
        }
    }

    func makeVideoOutput(paced: Bool) -> VideoOutput {
        switch self {
        case .null: return NullVideoOutput(paced: paced)
        case .record(let directory): return RecordingVideoOutput(directory: directory, paced: paced)
        }
    }

    func makeAudioOutput(paced: Bool) -> AudioOutput {
        switch self {
        case .null: return NullAudioOutput(paced: paced)
        case .record(let directory): return RecordingAudioOutput(directory: directory, paced: paced)
        }
    }
}
