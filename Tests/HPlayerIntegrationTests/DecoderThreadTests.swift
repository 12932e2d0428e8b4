import CFFmpeg
import Foundation
@testable import HPlayerKit
import HPlayerTestSupport
import Testing

extension Playback {
    @Suite struct DecoderThreads {
        /// Clips of 90 pictures at 30 fps with B-frames and a key frame every 15: H.264 in MP4
        /// (length-prefixed), raw H.264 (start codes), and HEVC in MP4 with closed GOPs (IDR) and
        /// with x265's open ones (CRA).
        static func clip(_ kind: String) throws -> String {
            let source = ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=3", "-g", "15", "-keyint_min", "15", "-sc_threshold", "0"]
            switch kind {
            case "h264-mp4": return try Fixtures.clip("threads-h264.mp4", source + ["-c:v", "libx264", "-bf", "3"])
            case "h264-raw": return try Fixtures.clip("threads-raw.h264", source + ["-c:v", "libx264", "-bf", "3", "-f", "h264"])
            case "hevc-closed":
                return try Fixtures.clip("threads-hevc-closed.mp4", source + ["-c:v", "libx265", "-x265-params", "log-level=error:open-gop=0:bframes=3"])
            default:
                return try Fixtures.clip("threads-hevc-open.mp4", source + ["-c:v", "libx265", "-x265-params", "log-level=error:open-gop=1:bframes=3"])
            }
        }

        @Test("A decoder that falls behind hands over to more threads at the next IDR: every picture comes out once, in order, exact; an open-GOP HEVC stream (CRA key frames) keeps its decoder until a flush (a seek), and is exact either way; an exact seek decodes on a thread per core until its target",
              arguments: [("h264-mp4", true), ("h264-raw", true), ("hevc-closed", true), ("hevc-open", false)])
        func handOverIsExact(kind: String, handsOverMidStream: Bool) throws {
            let clip = try Self.clip(kind)
            let expected = try Fixtures.frameMD5s(clip)
            let container = InputContainer(url: clip)
            try container.open(fullAnalysis: true)
            defer { container.close() }
            let index = container.chosenStream(of: .video, number: nil)
            let stream = try #require(container.ownStream(Int(index)))
            // The speed counts from the start: at a million times, as many threads as cores.
            #expect(try ThreadSizedDecoder(stream: stream, input: clip, rate: PlaybackRate(1e6), cores: 4).threads == 4)
            let rate = PlaybackRate(1)
            let sized = try ThreadSizedDecoder(stream: stream, input: clip, rate: rate, cores: 4)
            #expect(sized.threads == 1, "320x180 at 1x: one thread")
            let md5 = FrameMD5()
            let frame = Frame()
            var packet: UnsafeMutablePointer<AVPacket>? = av_packet_alloc()
            defer { av_packet_free(&packet) }
            /// Every picture of the clip from its start, as the decoder gives them. With
            /// `exactSeek`, the first packet is sent as an exact seek's (DecodeLoop's flag set,
            /// which a key frame's picture does not heed): the threads then are noted.
            var threadsAtSeek = 0
            func decodeAll(exactSeek: Bool = false) -> [String] {
                var digests: [String] = []
                func take() {
                    while sized.receive(into: frame.avFrame) == .ok {
                        digests.append(md5.digest(of: frame))
                        av_frame_unref(frame.avFrame)
                    }
                }
                var sent = 0
                while container.readOwn(into: packet!) >= 0 {
                    if packet!.pointee.stream_index == index {
                        // The speed jumps after the first GOP: one thread no longer keeps up, and
                        // the next measurement asks for every core.
                        if sent == 15 { rate.speed = 1e6 }
                        if exactSeek, sized.skipsNonReferenceFrames != (sent == 0) { sized.skipsNonReferenceFrames = sent == 0 }
                        while sized.send(packet) == .needsIO { take() }
                        if exactSeek, sent == 0 { threadsAtSeek = sized.threads }
                        take()
                        sent += 1
                    }
                    av_packet_unref(packet)
                }
                _ = sized.send(nil)
                take()
                return digests
            }
            #expect(decodeAll() == expected)
            #expect(sized.threads == (handsOverMidStream ? 4 : 1))
            // A seek back to the start: the first packet after the flush is where an open-GOP
            // stream hands over.
            sized.flush()
            rate.speed = 1
            #expect((kind == "h264-raw" ? container.seekToFirstByte() : container.seekOwn(toMicroseconds: 0)) >= 0)
            #expect(decodeAll() == expected)
            #expect(sized.threads == 4)
            // An exact seek: a thread per core and one more to its target (here the first
            // packet), then the sized decoder again from the next fresh start, exact across. Not
            // in a stream with no fresh start past its first packet: the larger one would stay.
            sized.flush()
            #expect((kind == "h264-raw" ? container.seekToFirstByte() : container.seekOwn(toMicroseconds: 0)) >= 0)
            #expect(decodeAll(exactSeek: true) == expected)
            #expect(threadsAtSeek == (handsOverMidStream ? 5 : 4))
            #expect(sized.threads == 4)
        }

        @Test("At 1x libavfilter is not loaded (its 31 libraries are 11 MiB resident); a speed of 1.5 loads it and playback goes on",
              .timeLimit(.minutes(1)))
        func filterLibraryOnlyForTempo() throws {
            let clip = try Clips.audioVideo(seconds: 6)
            let folder = Fixtures.newFolder("lazy-avfilter")
            let socket = folder + "/hplayer.sock"
            let player = try BackgroundProcess([Command.hplayer, clip, "--no-status", "--vo", "null", "--ao", "null",
                                                "--input-ipc-server", socket])
            let client = try IPCClient(path: socket)
            #expect(client.waitUntilLoaded())
            // Read to the end: /proc's files give their size as 0.
            func maps() -> String {
                let data = FileHandle(forReadingAtPath: "/proc/\(player.processIdentifier)/maps")?.readDataToEndOfFile() ?? Data()
                return String(decoding: data, as: UTF8.self)
            }
            func mapsFilterLibrary() -> Bool { maps().contains("libavfilter.so") }
            #expect(maps().contains("libavcodec.so"), "the maps are read")
            #expect(eventually { (client.request([.string("get_property"), .string("time-pos")])?["data"]?.number ?? 0) > 0.5 })
            #expect(!mapsFilterLibrary())
            #expect(client.request([.string("set_property"), .string("speed"), .number(1.5)])?["error"] == .string("success"))
            #expect(eventually { mapsFilterLibrary() })
            let before = client.request([.string("get_property"), .string("time-pos")])?["data"]?.number ?? 0
            #expect(eventually { (client.request([.string("get_property"), .string("time-pos")])?["data"]?.number ?? 0) > before + 0.5 })
            #expect(client.request([.string("quit")])?["error"] == .string("success"))
            #expect(player.wait(timeout: 10) == 0, "\(player.stderr)")
            #expect(!player.stderr.contains("error"), "\(player.stderr)")
        }
    }
}
