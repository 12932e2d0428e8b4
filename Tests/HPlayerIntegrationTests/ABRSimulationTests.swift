import Foundation
import HPlayerKit
import HPlayerTestSupport
import Testing

extension Playback {
    /// `hplayer abr-sim`, the trace-driven simulator, as a smoke test on two short traces.
    @Suite(.timeLimit(.minutes(2))) struct ABRSimulation {
        @Test("hplayer abr-sim runs every policy over two short traces and prints one line of means per policy")
        func twoShortTraces() throws {
            let folder = Fixtures.newFolder("abr-traces") + "/short"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            // A step (fast, then a fall, then fast again) and a link that wobbles.
            try "0\t6.0\n40\t0.6\n80\t6.0\n".write(toFile: folder + "/step", atomically: true, encoding: .utf8)
            try (0..<60).map { "\($0 * 2)\t\($0 % 4 < 2 ? 2.5 : 1.2)" }.joined(separator: "\n")
                .write(toFile: folder + "/wobble", atomically: true, encoding: .utf8)
            let result = try Command.run([Command.hplayer, "abr-sim", folder, "--segments", "30"], timeout: 90)
            #expect(result.status == 0, "\(result.stderr)")
            let rows = result.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
            let means = rows.filter { $0.first == "short" }
            #expect(means.map { $0[1] } == ["seed", "throughput", "bola", "auto"], "\(result.stdout)")
            for row in means {
                let bitrate = Double(row[4]) ?? 0
                #expect(row[2] == "2" && Double(row[3]) != nil && bitrate >= 0.3 && bitrate <= 4.3, "\(row)")
            }
        }

        @Test("A ladder ffmpeg made is read from its master playlist and its segment files; --offline adds what a player that knew the trace could play")
        func ladderFromAMasterPlaylist() throws {
            let folder = Fixtures.newFolder("abr-ladder")
            for (index, rate) in ["300k", "750k"].enumerated() {
                try FileManager.default.createDirectory(atPath: "\(folder)/v\(index)", withIntermediateDirectories: true)
                let made = try Command.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=8",
                                            "-c:v", "libx264", "-b:v", rate, "-g", "100", "-f", "hls", "-hls_time", "4", "-hls_playlist_type", "vod",
                                            "\(folder)/v\(index)/index.m3u8"], timeout: 120)
                try #require(made.status == 0, "\(made.stderr)")
            }
            try "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=300000\nv0/index.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=750000\nv1/index.m3u8\n"
                .write(toFile: folder + "/master.m3u8", atomically: true, encoding: .utf8)
            let trace = folder + "/steady"
            try "0\t2.0\n1\t2.0\n".write(toFile: trace, atomically: true, encoding: .utf8)
            let result = try Command.run([Command.hplayer, "abr-sim", trace, "--ladder", folder + "/master.m3u8", "--offline"], timeout: 90)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "ladder \(MediaMetadata.fileName(of: folder)): 300 750 kb/s, 2 segments of 4.0 s", "\(result.stdout)")
            #expect(lines.dropFirst(2).map { $0.split(separator: "\t").map(String.init)[1] } == ["seed", "throughput", "bola", "auto", "offline"], "\(result.stdout)")
        }

        @Test("A file that is not a trace: one line naming it, exit 1")
        func notATrace() throws {
            let path = Fixtures.newFolder("abr-bad") + "/bad"
            try "not\ta trace\n".write(toFile: path, atomically: true, encoding: .utf8)
            let result = try Command.run([Command.hplayer, "abr-sim", path])
            #expect(result.status == 1)
            #expect(result.stderr == "hplayer: error: \(path): not a throughput trace (lines of \"<seconds>\\t<Mbit/s>\")\n", "\(result.stderr)")
        }
    }
}
