import Foundation
import HPlayerKit
import HPlayerTestSupport
import Testing

extension Clips {
    /// 6 s of MPEG-TS at 25 fps with a key frame exactly every 2 s (50 pictures) and B-frames.
    static func keyedEveryTwoSeconds(codec: String) throws -> String {
        let encoder = codec == "hevc"
            ? ["-c:v", "libx265", "-x265-params", "log-level=error:keyint=50:min-keyint=50:scenecut=0"]
            : ["-c:v", "libx264", "-g", "50", "-keyint_min", "50", "-sc_threshold", "0", "-bf", "2"]
        return try Fixtures.clip("keyed-2s-\(codec).ts", ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=6"] + encoder)
    }
}

extension Playback {
    /// Streams as a network delivers them when things go wrong: joined mid-GOP, or with
    /// datagrams' worth of bytes damaged.
    @Suite struct DamagedStreams {
        private struct Played {
            var md5s: [String]
            var stderr: String
            var status: Int32
            /// The Errors figure of the last status line; 0 when it shows none.
            var errors: Int {
                guard let line = stderr.split(separator: "\n").last(where: { $0.hasPrefix("AV:") }),
                      let range = line.range(of: "Errors: ") else { return 0 }
                return Int(line[range.upperBound...].prefix { $0.isNumber }) ?? 0
            }
        }

        private func play(_ path: String, name: String) throws -> Played {
            let folder = Fixtures.newFolder(name)
            let result = try Command.run([Command.hplayer, path, "--untimed", "--vo", "record:\(folder)", "--ao", "null"], timeout: 60)
            let log = (try? String(contentsOfFile: folder + "/video.tsv", encoding: .utf8)) ?? ""
            let md5s = log.split(separator: "\n").compactMap { $0.split(separator: "\t").last.map(String.init) }
            return Played(md5s: md5s, stderr: result.stderr, status: result.status)
        }

        /// The bytes of `path` from the first whole TS packet at or after `fraction` of its length.
        private func joinedAt(_ fraction: Double, of path: String, name: String) throws -> String {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let start = Int(Double(bytes.count) * fraction) / 188 * 188
            let joined = Fixtures.newFolder(name) + "/joined.ts"
            try bytes[start...].write(to: URL(fileURLWithPath: joined))
            return joined
        }

        /// Where ffprobe says the first key frame of `path` is, among its pictures in order.
        private func firstKeyFrameIndex(_ path: String) throws -> Int? {
            let result = try Command.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=key_frame",
                                          "-of", "csv=p=0", path])
            return result.stdout.split(separator: "\n").firstIndex { $0.hasPrefix("1") }
        }

        @Test("HEVC joined mid-GOP: nothing is shown before the first key frame, every picture from it is ffmpeg's, and the status line counts errors",
              .timeLimit(.minutes(1)))
        func joinedMidGOP() throws {
            let joined = try joinedAt(0.36, of: try Clips.keyedEveryTwoSeconds(codec: "hevc"), name: "joined-hevc")
            let decodedByFFmpeg = try Fixtures.frameMD5s(joined)
            let key = try #require(try firstKeyFrameIndex(joined))
            // ffmpeg shows the pictures before it, built on references it never had.
            #expect(key > 0)
            let played = try play(joined, name: "joined-hevc-play")
            #expect(played.status == 0, "\(played.stderr)")
            #expect(played.md5s == Array(decodedByFFmpeg[key...]))
            #expect(played.errors >= key, "\(played.stderr)")
        }

        @Test("H.264 with periodic intra refresh (recovery points, no IDR after the first) joined mid-stream: every picture ffmpeg shows, none held back waiting for an IDR",
              .timeLimit(.minutes(1)))
        func joinedIntraRefresh() throws {
            let clip = try Fixtures.clip("intra-refresh.ts", ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=6",
                                                              "-c:v", "libx264", "-x264-params", "intra-refresh=1:keyint=50", "-bf", "0"])
            let joined = try joinedAt(0.36, of: clip, name: "joined-intra-refresh")
            let decodedByFFmpeg = try Fixtures.frameMD5s(joined)
            #expect(decodedByFFmpeg.count > 20)
            let played = try play(joined, name: "joined-intra-refresh-play")
            #expect(played.status == 0, "\(played.stderr)")
            #expect(played.md5s == decodedByFFmpeg)
        }

        @Test("H.264 with bytes damaged in its second GOP: no crash, the errors are counted, and the first GOP and the third (from its IDR) are the undamaged stream's pictures",
              .timeLimit(.minutes(1)))
        func corruptBytes() throws {
            let clean = try Clips.keyedEveryTwoSeconds(codec: "h264")
            let expected = try Fixtures.frameMD5s(clean)
            #expect(expected.count == 150)
            // The byte range of the pictures 55 to 85 (decode order is close enough: the damage
            // stays inside the second GOP, pictures 50 to 99).
            let packets = try Command.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pos",
                                           "-of", "csv=p=0", clean]).stdout.split(separator: "\n").compactMap { line in
                line.split(separator: ",").first.flatMap { Int($0) }
            }
            try #require(packets.count == 150)
            let from = packets[55] / 188, to = packets[85] / 188
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: clean)))
            var generator = SplitMix(seed: 7)
            for packet in stride(from: from, to: to, by: 3) {
                for offset in 20..<120 { bytes[packet * 188 + offset] ^= UInt8(truncatingIfNeeded: generator.next()) | 1 }
            }
            let damaged = Fixtures.newFolder("damaged") + "/damaged.ts"
            try Data(bytes).write(to: URL(fileURLWithPath: damaged))

            let played = try play(damaged, name: "damaged-play")
            #expect(played.status == 0, "\(played.stderr)")
            #expect(Array(played.md5s.prefix(50)) == Array(expected.prefix(50)))
            #expect(Array(played.md5s.suffix(50)) == Array(expected.suffix(50)))
            #expect(played.errors > 0, "\(played.stderr)")
        }
    }
}
