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
    @Flag(help: "Draw the subtitles on the frame: the media's default subtitle track, else its first text one.") var subs = false
    @Option(help: "Draw this subtitle track of the media (numbered from 1, as --sid); implies --subs.") var sid: Int?
    @Option(name: .customLong("sub-file"), help: "Draw this subtitle file's subtitles (.srt, .ass, .vtt, …); implies --subs.")
    var subFile: String?
    @Option(name: .customLong("sub-scale"), help: "Subtitle font sizes times this, as hplayer's and mpv's --sub-scale.") var subScale = 1.0
    @Option(name: .customLong("sub-pos"), help: "Where subtitles sit, 0 (top) to 150, as --sub-pos.") var subPos = 100.0
    @Option(name: .customLong("sub-font"), help: "The font of text subtitles, as --sub-font.") var subFont = "sans-serif"
    @Option(name: .customLong("sub-font-size"), help: "The size of text subtitles, as --sub-font-size.") var subFontSize = 55.0
    @Option(name: .customLong("sub-ass-override"), help: "How much of the options above an ASS script takes: no, yes (the default), scale, force or strip, as --sub-ass-override.")
    var subASSOverride = ASSOverride.yes
    @OptionGroup(title: "Network") var network: NetworkArguments
    @OptionGroup var common: CommonOptions

    func run() throws {
        common.bootstrapLogging()
        var options = NetworkOptions()
        try network.apply(to: &options)
        do {
            let style = SubtitleStyle(scale: subScale, position: subPos, font: subFont, fontSize: subFontSize, assOverride: subASSOverride)
            let subtitles = subs || sid != nil || subFile != nil ? SnapshotSubtitles(file: subFile, stream: sid, style: style) : nil
            try Snapshot.write(url: url, at: at, to: output, network: options, subtitles: subtitles)
        } catch {
            throw CommandLineFailure.media(error)
        }
        FFmpegLineGate.open()
    }
}
