import ArgumentParser
import FoundationEssentials
import HPlayerKit
import Logging

struct HPlayerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hplayer",
        abstract: "A media player engine and player for Linux.",
        version: "hplayer 0.1 (FFmpeg \(MediaLibraries.ffmpegVersion))",
        subcommands: [PlayCommand.self, ProbeCommand.self, BenchCommand.self, SnapshotCommand.self, CacheCommand.self, ABRSimCommand.self, EncodeCommand.self],
        defaultSubcommand: PlayCommand.self
    )
}

/// Options every subcommand takes.
struct CommonOptions: ParsableArguments {
    @Flag(name: [.customShort("v"), .long], help: "Log more (repeat for debug logs).")
    var verbose: Int

    @Flag(name: .long, help: "Log errors only.")
    var quiet = false

    func bootstrapLogging() {
        let level: Logger.Level = quiet ? .error : verbose >= 2 ? .debug : verbose == 1 ? .info : .warning
        LoggingSystem.bootstrap { label in TerminalLogHandler(logLevel: level, label: label) }
        // libav*'s own messages: its errors always (as warnings), the rest with -v.
        FFmpegLogBridge.install(level: verbose >= 1 ? level : .error)
    }
}

struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe", abstract: "Describe a media file: container, duration, bit rate and every stream.")

    @Argument(help: "The file or URL.") var url: String
    @Flag(help: "Print JSON.") var json = false
    @OptionGroup(title: "Network") var network: NetworkArguments
    @OptionGroup var common: CommonOptions

    func run() throws {
        common.bootstrapLogging()
        var options = NetworkOptions()
        try network.apply(to: &options)
        let info: MediaInfo
        do {
            info = try MediaProbe.probe(url: url, network: options)
            FFmpegLineGate.open()
        } catch {
            throw CommandLineFailure.media(error)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(info), as: UTF8.self))
        } else {
            print(ProbeText.describe(info))
        }
    }
}

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Read, decode and pass every frame through the queues as fast as possible.",
        discussion: "Prints `frames N seconds S fps F` (video frames, or audio frames when there is no video).")

    @Argument(help: "The file or URL.") var url: String
    @Option(help: "Hardware decoding, as play's --hwdec.")
    var hwdec: HardwareDecodingArgument = HardwareDecodingArgument(.no)
    @Option(help: "The video decoder's threads, as play's --vd-lavc-threads.")
    var vdLavcThreads = 0
    @OptionGroup(title: "Network") var network: NetworkArguments
    @OptionGroup var common: CommonOptions

    func run() throws {
        common.bootstrapLogging()
        var options = SourceOptions()
        options.hardwareDecoding = hwdec.value
        try checkDecoderThreads(vdLavcThreads)
        options.videoDecoderThreads = vdLavcThreads
        try network.apply(to: &options.network)
        do {
            let result = try DecodeBenchmark.run(url: url, options: options)
            FFmpegLineGate.open()
            print("frames \(result.frames) seconds \(cFormat("%.3f", result.seconds)) fps \(cFormat("%.1f", result.framesPerSecond))")
        } catch {
            throw CommandLineFailure.media(error)
        }
    }
}
