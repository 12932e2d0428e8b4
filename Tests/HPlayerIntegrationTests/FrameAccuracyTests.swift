import Foundation
import HPlayerKit
import Testing

extension Playback {
    @Suite struct FrameAccuracy {
        @Test("The recording output gets exactly the frames ffmpeg -f framemd5 lists", arguments: [
            ClipCase(codec: "h264", size: "320x240"),
            ClipCase(codec: "hevc", size: "320x240"),
            ClipCase(codec: "vp9", size: "320x240"),
            ClipCase(codec: "av1", size: "320x240"),
            ClipCase(codec: "vp9", size: "321x241"),
            ClipCase(codec: "h264-444", size: "321x241"),
        ])
        func everyFrameReachesTheOutput(_ clipCase: ClipCase) async throws {
            let clip = try Clips.video(clipCase.codec, size: clipCase.size)
            let expected = try Fixtures.frameMD5s(clip)
            let session = PlayerSession(url: clip, name: clipCase.codec)
            try await session.playToEnd()
            let frames = session.presentedFrames
            #expect(frames.count == expected.count)
            #expect(frames.map(\.md5) == expected)
            #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.pts < $1.pts && $0.presentedAt <= $1.presentedAt })
            #expect(session.player.status.droppedFrames == 0)
        }

        @Test("An exact seek skips decoding the B-frames before its target, and presents the frames ffmpeg decodes from it")
        func exactSeekPresentsTheRightFrames() async throws {
            // B-frames no other frame refers to (-b-pyramid none), a key frame every 2 s.
            let clip = try Fixtures.clip("h264-nonref-b.mp4", [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4",
                "-c:v", "libx264", "-preset", "fast", "-bf", "3", "-x264-params", "b-pyramid=none", "-g", "50", "-pix_fmt", "yuv420p"])
            let expected = try Fixtures.frameMD5s(clip)
            let session = PlayerSession(url: clip, name: "exact-nonref")
            session.player.prepare()
            try await session.waitForPrepared()
            let requested = try await session.playToEnd(seekingTo: 3.5, mode: .exact)
            let decoded = session.player.status.decodedVideoFrames
            session.close()
            let frames = session.presentedFrames.filter { $0.presentedAt > requested }
            #expect(frames.map(\.pts) == (88..<100).map { Double($0) / 25 })
            #expect(frames.map(\.md5) == Array(expected.suffix(12)))
            // From the key frame at 2 s (frame 50) to the end: 50 frames, less the B-frames more
            // than a frame before the target (3.5 s), which no frame refers to.
            let types = try Command.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "frame=pict_type",
                                         "-of", "csv=p=0", clip]).stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            let skippable = types.enumerated().filter { $0.offset >= 50 && Double($0.offset) / 25 < 3.5 - 0.04 && $0.element == "B" }.count
            #expect(skippable > 0)
            #expect(decoded == 50 - skippable, "decoded \(decoded) frames after the seek; \(skippable) B-frames before the target")
        }

        @Test("A picture format the output does not take is converted, once, to one it does")
        func unsupportedPixelFormatIsConverted() async throws {
            let clip = try Clips.video("hevc10")
            let expected = try Fixtures.frameMD5s(clip).count
            let output = CapturingVideoOutput(accepted: [.nv12, .yuv420p, .bgra])
            let session = PlayerSession(url: clip, name: "convert", videoOutput: output)
            try await session.playToEnd()
            let captured = output.frames
            #expect(captured.count == expected)
            // Once: one conversion for each frame decoded.
            let status = session.player.status
            #expect(status.decodedVideoFrames == expected && status.convertedVideoFrames == expected,
                    "\(status.decodedVideoFrames) decoded, \(status.convertedVideoFrames) converted")
            // 10-bit 4:2:0 becomes 8-bit 4:2:0, planar or semi-planar: no needless trip through RGB.
            #expect(captured.allSatisfy { [PixelFormat.yuv420p, .nv12].contains($0.format) && $0.width == 320 && $0.height == 240 })
            // Compare luma with ffmpeg's own 10 → 8 bit conversion of the same frames.
            let reference = try Fixtures.clip("hevc10-as-8bit.yuv", ["-i", clip, "-pix_fmt", "yuv420p", "-f", "rawvideo"])
            let bytes = try Data(contentsOf: URL(fileURLWithPath: reference))
            let frameSize = 320 * 240 * 3 / 2
            for (index, frame) in captured.enumerated() where (index + 1) * frameSize <= bytes.count {
                let lumaReference = bytes[(index * frameSize)..<(index * frameSize + 320 * 240)]
                let difference = zip(frame.luma, lumaReference).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
                #expect(Double(difference) / Double(320 * 240) < 1.5, "frame \(index) differs from ffmpeg's conversion")
            }
        }
    }
}

/// A video output that takes only some pixel formats and keeps each frame's luma.
final class CapturingVideoOutput: VideoOutput, @unchecked Sendable {
    struct Captured {
        var format: PixelFormat
        var width: Int
        var height: Int
        var luma: [UInt8]
    }

    let acceptedPixelFormats: [PixelFormat]?
    private let captured = Locked<[Captured]>([])
    private let inner = NullVideoOutput()
    private var renderer: VideoRendering?

    init(accepted: [PixelFormat]) {
        acceptedPixelFormats = accepted
    }

    var frames: [Captured] { captured.withLock { $0 } }

    func open(renderer: VideoRendering, format: VideoFormat) throws(MediaError) {
        try inner.open(renderer: CapturingRenderer(inner: renderer) { [captured] frame in
            var luma: [UInt8] = []
            luma.reserveCapacity(frame.width * frame.height)
            if let plane = frame.plane(0) {
                for row in 0..<frame.height {
                    luma.append(contentsOf: UnsafeBufferPointer(start: plane + row * frame.lineSize(0), count: frame.width))
                }
            }
            captured.withLock { $0.append(Captured(format: frame.pixelFormat, width: frame.width, height: frame.height, luma: luma)) }
        }, format: format)
    }

    func start() { inner.start() }
    func pause() { inner.pause() }
    func requestRefresh() { inner.requestRefresh() }
    func close() { inner.close() }
}

/// Sees each frame on its way to being presented.
final class CapturingRenderer: VideoRendering, @unchecked Sendable {
    private let inner: VideoRendering
    private let capture: (Frame) -> Void

    init(inner: VideoRendering, capture: @escaping (Frame) -> Void) {
        self.inner = inner
        self.capture = capture
    }

    func refresh(at time: Double) -> VideoRefresh { inner.refresh(at: time) }

    func didPresent(_ frame: Frame, at time: Double) {
        capture(frame)
        inner.didPresent(frame, at: time)
    }

    func subtitle(atMediaPts pts: Double) -> ShownSubtitle? { inner.subtitle(atMediaPts: pts) }
}
