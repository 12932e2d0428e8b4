import CFFmpeg
import Foundation
@testable import HPlayerKit
import HPlayerTestSupport
import Testing

/// Live MPEG-TS is read with libavformat's parsers off and parsed by StreamParsers: pictures as
/// the complete frames a PES carries, sound split into its frames. The packets must be libavformat's.
@Suite(.serialized, .phased) struct LiveParsing {
    /// A packet as the decoders get it.
    struct ReadPacket: Equatable, CustomStringConvertible {
        var stream: Int32
        var isVideo: Bool
        var pts: Int64
        var dts: Int64
        var duration: Int64
        var isKey: Bool
        var bytes: [UInt8]

        /// Without zero bytes at either end.
        var trimmingZeros: ReadPacket {
            var trimmed = self
            let first = bytes.firstIndex { $0 != 0 } ?? bytes.endIndex
            let last = bytes.lastIndex { $0 != 0 }.map { $0 + 1 } ?? first
            trimmed.bytes = Array(bytes[first..<max(first, last)])
            return trimmed
        }

        var description: String { "stream \(stream) pts \(pts) dts \(dts) duration \(duration) key \(isKey) \(bytes.count) bytes" }
    }

    private func packets(_ clip: String, live: Bool) throws -> [ReadPacket] {
        let container = InputContainer(url: clip, isLive: live)
        try container.open(fullAnalysis: true)
        defer { container.close() }
        var packet: UnsafeMutablePointer<AVPacket>? = av_packet_alloc()
        defer { av_packet_free(&packet) }
        var read: [ReadPacket] = []
        while container.readOwn(into: packet!) >= 0 {
            let p = packet!.pointee
            let isVideo = container.ownStream(Int(p.stream_index))?.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO
            read.append(ReadPacket(stream: p.stream_index, isVideo: isVideo, pts: p.pts, dts: p.dts, duration: p.duration, isKey: p.flags & AV_PKT_FLAG_KEY != 0,
                                   bytes: Array(UnsafeBufferPointer(start: p.data, count: Int(p.size)))))
            av_packet_unref(packet)
        }
        return read
    }

    @Test("Live MPEG-TS whose pictures are each split over two PES packets: found at the first PES with no timestamp, and from then on the pictures are libavformat's, joined")
    func picturesSplitOverPESPackets() throws {
        let whole = try Fixtures.clip("h264-bframes-aac-grouped.ts", Self.clips[1].arguments)
        let clip = Fixtures.directory.appendingPathComponent("h264-split-pes.ts").path
        let result = try Command.run(["python3", Repository.root.appendingPathComponent("scripts/ts-split-pes.py").path, whole, clip])
        #expect(result.status == 0, "\(result.stderr)")
        let expected = try packets(clip, live: false).filter(\.isVideo).map(\.trimmingZeros)
        let got = try packets(clip, live: true).filter(\.isVideo).map(\.trimmingZeros)
        // Up to two are damaged: a half picture taken whole before the split was seen, and what
        // the parser made of the other half, begun mid-picture. The rest are joined.
        #expect(got.count >= expected.count * 2 / 3 && got.count <= expected.count, "\(got.count) of \(expected.count)")
        let joined = max(0, got.count - 2)
        let gotJoined = Array(got.suffix(joined)), expectedJoined = Array(expected.suffix(joined))
        if let first = gotJoined.indices.first(where: { gotJoined[$0] != expectedJoined[$0] }) {
            Issue.record("picture \(first) of \(joined) joined: \(gotJoined[first]), libavformat: \(expectedJoined[first])")
        }
    }

    static let clips: [(name: String, arguments: [String])] = [
        // As bench/latency and the live tests send: a PES per sound frame.
        ("h264-aac-pes-per-frame.ts", ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=4",
                                       "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=4",
                                       "-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-bf", "0", "-c:a", "aac",
                                       "-muxdelay", "0", "-muxpreload", "0", "-pes_payload_size", "0", "-f", "mpegts"]),
        // The muxer's defaults: sound frames grouped into PES packets, B-frames.
        ("h264-bframes-aac-grouped.ts", ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=4",
                                         "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=4",
                                         "-c:v", "libx264", "-preset", "veryfast", "-g", "25", "-bf", "2", "-c:a", "aac", "-f", "mpegts"]),
        ("hevc-mp2.ts", ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=3",
                         "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=3",
                         "-c:v", "libx265", "-x265-params", "log-level=error:keyint=25", "-c:a", "mp2", "-f", "mpegts"]),
        ("mpeg2-ac3.ts", ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=3",
                          "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=3",
                          "-c:v", "mpeg2video", "-g", "12", "-c:a", "ac3", "-f", "mpegts"]),
    ]

    @Test("Live MPEG-TS parsed by our parsers gives each stream's packets as libavformat's parsers do, from where the stream analysis left off: the bytes, timestamps, durations and key frames",
          arguments: clips.map(\.name))
    func packetsAsLibavformats(name: String) throws {
        let clip = try Fixtures.clip(name, Self.clips.first { $0.name == name }!.arguments)
        let file = try packets(clip, live: false)
        let live = try packets(clip, live: true)
        for stream in Set(file.map(\.stream)).sorted() {
            let expected = file.filter { $0.stream == stream }
            let gotWhole = live.filter { $0.stream == stream }
            // Live drops what its analysis read (nobuffer): the rest, packet for packet.
            #expect(gotWhole.count >= expected.count * 2 / 3, "stream \(stream): \(gotWhole.count) of \(expected.count)")
            #expect(gotWhole.count <= expected.count, "stream \(stream): \(gotWhole.count) packets, libavformat's \(expected.count)")
            guard gotWhole.count <= expected.count else { continue }
            // A picture's bytes are the PES's; libavformat's parser gives the first zero of the
            // next picture's four-byte start code to the picture before (leading and trailing
            // zeros, which decoders skip): compared without them.
            let tail = Array(expected.suffix(gotWhole.count)).map { $0.isVideo ? $0.trimmingZeros : $0 }
            let got = gotWhole.map { $0.isVideo ? $0.trimmingZeros : $0 }
            if let first = got.indices.first(where: { got[$0] != tail[$0] }) {
                Issue.record("stream \(stream), packet \(first) of \(got.count): \(got[first]), libavformat: \(tail[first])")
            }
            #expect(got.contains { $0.isKey }, "stream \(stream): no key frame")
        }
    }
}
