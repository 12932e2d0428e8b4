import ArgumentParser
import HPlayerKit

/// `hplayer snapshot URL --at TIME -o OUT.png`: one frame to a PNG file, without playing.
struct SnapshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Write the frame at a time to a PNG file, upright and at its display size, without playing.",
        discussion: """
            The frame is the first at or after the time, the one `ffmpeg -ss TIME -i URL -frames:v 1` extracts; \
            between the last frame and the end, the last frame.
            """)

    @Argument(help: "The file or URL.") var url: String
    @Option(help: "The time: seconds, [[hh:]mm:]ss or a percentage (25%).") var at: StartPosition
    @Option(name: [.customShort("o"), .long], help: "The PNG file to write; a file already there is replaced.") var output: String
    @OptionGroup(title: "Network") var network: NetworkArguments
    @OptionGroup var common: CommonOptions

    func run() throws {
        common.bootstrapLogging()
        var options = NetworkOptions()
        try network.apply(to: &options)
        do {
            try Snapshot.write(url: url, at: at, to: output, network: options)
        } catch {
            throw CommandLineFailure.media(error)
        }
        FFmpegLineGate.open()
    }
}
