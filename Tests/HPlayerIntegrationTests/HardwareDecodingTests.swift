import CFFmpeg
import CHPlayerShim
import Foundation
@testable import HPlayerKit
import Testing

/// A hardware decoder's stand-in where no GPU is: FFmpeg's software decoder, which fails as a
/// lost device would once it has given `failingAfter` pictures.
private final class FailingDecoder: Decoder {
    private let inner: SoftwareDecoder
    private let failingAfter: Int
    private(set) var given = 0

    init(stream: UnsafeMutablePointer<AVStream>, failingAfter: Int) throws {
        inner = try SoftwareDecoder(stream: stream)
        self.failingAfter = failingAfter
    }

    func send(_ packet: UnsafeMutablePointer<AVPacket>?) -> DecoderStatus {
        given >= failingAfter ? .failed(FFmpegError(hp_averror(EIO))) : inner.send(packet)
    }

    func receive(into frame: UnsafeMutablePointer<AVFrame>) -> DecoderStatus {
        guard given < failingAfter else { return .failed(FFmpegError(hp_averror(EIO))) }
        let status = inner.receive(into: frame)
        if status == .ok { given += 1 }
        return status
    }

    func flush() { inner.flush() }
    var skipsNonReferenceFrames: Bool {
        get { inner.skipsNonReferenceFrames }
        set { inner.skipsNonReferenceFrames = newValue }
    }
    var frameRate: Double? { inner.frameRate }
}

/// The library's `--hwdec` setting, which the suite's name hides.
private typealias HardwareDecodingSetting = HardwareDecoding

extension Playback {
    @Suite struct HardwareDecoding {
        @Test("--hwdec=vaapi with no VA-API device: one line says so, and every picture is decoded in software, exact",
              .enabled(if: !FileManager.default.fileExists(atPath: "/dev/dri/renderD128"), "this machine has a DRM render node"),
              .timeLimit(.minutes(1)))
        func noDevice() throws {
            let (clip, result, md5s) = try play(hwdec: "vaapi")
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("hplayer: warning: \(clip): --hwdec=vaapi: no vaapi device ("), "\(result.stderr)")
            #expect(lines.first?.hasSuffix("): decoding in software") == true, "\(result.stderr)")
            #expect(md5s == (try Fixtures.frameMD5s(clip)))
        }

        @Test("--hwdec=vulkan, which FFmpeg 5.1 cannot decode H.264 with: one line says so, and software decodes every picture",
              .enabled(if: avcodec_version() >> 16 < 60, "FFmpeg 6.1 and later decode H.264 with Vulkan"), .timeLimit(.minutes(1)))
        func noSuchHwaccel() throws {
            let (clip, result, md5s) = try play(hwdec: "vulkan")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr == "hplayer: warning: \(clip): --hwdec=vulkan: this FFmpeg has no vulkan decoding for h264: decoding in software\n")
            #expect(md5s == (try Fixtures.frameMD5s(clip)))
        }

        @Test("--vd-lavc-threads reaches the video decoder: N threads in software and in the software decoder taken when no hardware one opens, libavcodec's choice at 0",
              arguments: [("no", 0), ("no", 1), ("no", 3), ("vulkan", 3)])
        func decoderThreads(hwdec: String, threads: Int) throws {
            let clip = try Clips.video("h264")
            let container = InputContainer(url: clip)
            try container.open(fullAnalysis: true)
            defer { container.close() }
            let stream = try #require(container.ownStream(Int(container.chosenStream(of: .video, number: nil))))
            let decoder = try VideoDecoderFactory.make(stream: stream, hardware: try #require(HardwareDecodingSetting(hwdec)),
                                                       input: clip, threads: threads)
            let software = try #require(decoder as? SoftwareDecoder)
            // libavcodec resolves 0 as it opens (a thread per core and one more, at most 16): as a decoder left to it.
            let expected = threads != 0 ? threads : Int(try SoftwareDecoder(stream: stream).context.pointee.thread_count)
            #expect(Int(software.context.pointee.thread_count) == expected)
        }

        @Test("--vd-lavc-threads=1 plays every picture exact; -1 is a usage error naming the option", .timeLimit(.minutes(1)))
        func oneThreadExact() throws {
            let clip = try Clips.video("h264")
            let folder = Fixtures.newFolder("vd-lavc-threads")
            let result = try Command.run([Command.hplayer, clip, "--vd-lavc-threads=1", "--untimed", "--vo", "record:\(folder)",
                                          "--ao", "null", "--no-status"], timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            let md5s = (try String(contentsOfFile: folder + "/video.tsv", encoding: .utf8)).split(separator: "\n").compactMap {
                $0.split(separator: "\t").last.map(String.init)
            }
            #expect(md5s == (try Fixtures.frameMD5s(clip)))
            let refused = try Command.run([Command.hplayer, clip, "--vd-lavc-threads=-1", "--vo", "null", "--ao", "null"], timeout: 60)
            #expect(refused.status == 2 && refused.stderr == "hplayer: error: --vd-lavc-threads: expected 0 (automatic: the fewest threads that keep up while playing) to 64, got -1\n",
                    "\(refused.stderr)")
        }

        @Test("The first warning or error libav* says while quiet (as a hardware decoder's calls are) is kept as the reason for the fallback's line, without its trailing period, and forgotten once taken")
        func quietLineKeptAsReason() {
            FFmpegLogBridge.install(level: .error)
            hp_log_quiet(1)
            _ = av_image_check_size(0, 0, 0, nil)
            _ = av_image_check_size(1, 0, 0, nil)
            hp_log_quiet(0)
            var line = [CChar](repeating: 0, count: 256)
            #expect(hp_log_quiet_take(&line, Int32(line.count)) > 0)
            #expect(String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) == "Picture size 0x0 is invalid")
            #expect(hp_log_quiet_take(&line, Int32(line.count)) == 0)
        }

        /// Raw H.264 with B-frames and a key frame every 15 pictures (60 in all): no timestamps,
        /// so pictures already given are told by count.
        static func rawWithGOPs() throws -> String {
            try Fixtures.clip("raw-gops.h264", ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=2",
                                                "-c:v", "libx264", "-bf", "3", "-g", "15", "-keyint_min", "15", "-sc_threshold", "0", "-f", "h264"])
        }

        @Test("A hardware decoder that fails after any of the pictures of an MP4 with B-frames (key frames every 25): software takes over from the last key frame, and no picture is lost or given twice",
              arguments: Array(1...49))
        func failureMidStream(failingAfter: Int) throws {
            let clip = try Clips.video("h264")
            #expect(try decodeFailing(clip, after: failingAfter) == (try Fixtures.frameMD5s(clip)))
        }

        @Test("The same in raw H.264 (no timestamps: pictures told by count), key frames every 15 with B-frames",
              arguments: Array(1...59))
        func failureMidRawStream(failingAfter: Int) throws {
            let clip = try Self.rawWithGOPs()
            #expect(try decodeFailing(clip, after: failingAfter) == (try Fixtures.frameMD5s(clip)))
        }

        /// Every picture of `clip`'s video as the fallback decoder gives them (MD5s as framemd5's),
        /// its hardware stand-in failing after `after` pictures.
        private func decodeFailing(_ clip: String, after: Int) throws -> [String] {
            let container = InputContainer(url: clip)
            try container.open(fullAnalysis: true)
            defer { container.close() }
            let index = container.chosenStream(of: .video, number: nil)
            let stream = try #require(container.ownStream(Int(index)))
            let failing = try FailingDecoder(stream: stream, failingAfter: after)
            let decoder = FallbackDecoder(primary: failing, api: .vaapi, input: clip, parameters: try StreamParameters(stream)) { kept throws(MediaError) in
                try SoftwareDecoder(parameters: kept, threads: 0)
            }
            let md5 = FrameMD5()
            let frame = Frame()
            var digests: [String] = []
            func take() {
                while decoder.receive(into: frame.avFrame) == .ok {
                    digests.append(md5.digest(of: frame))
                    av_frame_unref(frame.avFrame)
                }
            }
            var packet: UnsafeMutablePointer<AVPacket>? = av_packet_alloc()
            defer { av_packet_free(&packet) }
            while container.readOwn(into: packet!) >= 0 {
                if packet!.pointee.stream_index == index {
                    while decoder.send(packet) == .needsIO { take() }
                    take()
                }
                av_packet_unref(packet)
            }
            _ = decoder.send(nil)
            take()
            #expect(!decoder.isDecodingInHardware)
            #expect(failing.given == after)
            return digests
        }

        /// Plays the H.264 clip untimed with `--hwdec=VALUE`: the clip, the run, and the MD5s of the
        /// pictures presented.
        private func play(hwdec value: String) throws -> (clip: String, result: CommandResult, md5s: [String]) {
            let clip = try Clips.video("h264")
            let folder = Fixtures.newFolder("hwdec-\(value)")
            let result = try Command.run([Command.hplayer, clip, "--hwdec=\(value)", "--untimed", "--vo", "record:\(folder)", "--ao", "null",
                                          "--no-status"], timeout: 60)
            let md5s = ((try? String(contentsOfFile: folder + "/video.tsv", encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                $0.split(separator: "\t").last.map(String.init)
            }
            return (clip, result, md5s)
        }
    }
}
