import Foundation
import HPlayerKit
import HPlayerTestSupport
import Testing

extension Playback {
    /// The I/O layer: libavformat reading through a `ByteSource` (an AVIOContext of ours), not
    /// its own protocols.
    @Suite struct ByteSources {
        func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

        @Test("A clip read through a byte source presents the frames ffmpeg decodes, its index at the end or the start",
              arguments: ["end", "start"])
        func playsThroughAByteSource(index: String) async throws {
            let clip = try Fixtures.clip("byte-source-\(index).mp4", [
                "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2", "-f", "lavfi", "-i", "sine=d=2",
                "-c:v", "libx264", "-bf", "2", "-g", "25", "-c:a", "aac"] + (index == "start" ? ["-movflags", "+faststart"] : []))
            var options = PlayerOptions()
            options.isUntimed = true
            let source = FFmpegSource(url: clip, input: MemoryByteSource(try bytes(clip), input: clip))
            let session = PlayerSession(url: clip, options: options, name: "byte-source", source: source)
            try await session.playToEnd()
            #expect(session.presentedFrames.map(\.md5) == (try Fixtures.frameMD5s(clip)))
        }

        @Test("A local file read through FileByteSource presents the frames ffmpeg decodes, before and after an exact seek")
        func playsThroughAFileByteSource() async throws {
            let clip = try Fixtures.clip("byte-source-end.mp4", [
                "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2", "-f", "lavfi", "-i", "sine=d=2",
                "-c:v", "libx264", "-bf", "2", "-g", "25", "-c:a", "aac"])
            var options = PlayerOptions()
            options.isUntimed = true
            let session = PlayerSession(url: clip, options: options, name: "file-byte-source",
                                        source: FFmpegSource(url: clip, input: FileByteSource(path: clip)))
            try await session.playToEnd()
            #expect(session.presentedFrames.map(\.md5) == (try Fixtures.frameMD5s(clip)))

            let seeking = PlayerSession(url: clip, options: options, name: "file-byte-source-seek",
                                        source: FFmpegSource(url: clip, input: FileByteSource(path: clip)))
            seeking.player.prepare()
            try await seeking.waitForPrepared()
            let requested = try await seeking.playToEnd(seekingTo: 1, mode: .exact)
            seeking.close()
            let md5s = try Fixtures.frameMD5s(clip)
            let info = try #require(seeking.player.mediaInfo)
            let expected = try Fixtures.framePts(clip).enumerated().filter { $0.element >= info.startTime + 1 - 0.001 }.map { md5s[$0.offset] }
            #expect(!expected.isEmpty && seeking.presentedFrames.filter { $0.presentedAt > requested }.map(\.md5) == expected)
        }

        @Test("FileByteSource: a missing file and a folder are errors naming the path")
        func fileByteSourceErrors() {
            #expect(throws: MediaError(input: "/no/such/file.mp4", reason: "No such file or directory")) {
                try FileByteSource(path: "/no/such/file.mp4").open(at: 0)
            }
            #expect(throws: MediaError(input: "/tmp", reason: "not a regular file")) { try FileByteSource(path: "/tmp").open(at: 0) }
        }

        @Test("bench through a byte source counts the frames ffmpeg decodes")
        func benchThroughAByteSource() throws {
            let clip = try Clips.video("h264")
            let result = try DecodeBenchmark.run(url: clip, input: MemoryByteSource(try bytes(clip), input: clip))
            #expect(result.videoFrames == (try Fixtures.frameMD5s(clip)).count)
            let limited = try DecodeBenchmark.run(url: clip, input: MemoryByteSource(try bytes(clip), input: clip),
                                                  limits: DecodeBenchmark.Limits(frames: 10, seconds: 30))
            #expect(limited.videoFrames == 10)
        }

        @Test("Bytes that are not media: the opening fails with libavformat's reason, naming the input")
        func notMedia() throws {
            let input = MemoryByteSource(Array("just some text, not a video\n".utf8), input: "notes")
            #expect(throws: MediaError(input: "notes", reason: "Invalid data found when processing input")) {
                try DecodeBenchmark.run(url: "notes", input: input)
            }
        }

        @Test("A read that blocks (a stalled server) is cancelled by close: the player closes at once", .timeLimit(.minutes(1)))
        func aStalledReadIsCancelled() async throws {
            let clip = try Clips.video("h264")
            let stalled = StallingByteSource(try bytes(clip), stallAfter: 4096)
            let session = PlayerSession(url: clip, name: "stalled", source: FFmpegSource(url: clip, input: stalled))
            session.player.prepare()
            #expect(await until(timeout: 10) { stalled.isStalled })
            let asked = MonotonicClock.now()
            session.close()
            #expect(MonotonicClock.now() - asked < 1, "close waited \(MonotonicClock.now() - asked) s on the stalled read")
        }
    }
}

/// Gives the first bytes, then blocks every read until cancelled: a server that stopped sending.
final class StallingByteSource: ByteSource, @unchecked Sendable {
    private let bytes: [UInt8]
    private let stallAfter: Int
    private var offset = 0
    private let state = ConditionLock()
    private var cancelled = false
    private var stalled = false

    init(_ bytes: [UInt8], stallAfter: Int) {
        self.bytes = bytes
        self.stallAfter = stallAfter
    }

    var isStalled: Bool { state.withLock { stalled } }
    var info: ByteSourceInfo { ByteSourceInfo(contentLength: Int64(bytes.count)) }

    func open(at offset: Int64) throws(MediaError) { self.offset = Int(offset) }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(MediaError) -> Int {
        if offset >= stallAfter {
            state.withLock {
                stalled = true
                while !cancelled { state.wait() }
            }
            throw MediaError(input: "stalled", reason: "cancelled")
        }
        let count = min(buffer.count, stallAfter - offset)
        bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: count) }
        offset += count
        return count
    }

    func seek(to offset: Int64) throws(MediaError) { self.offset = Int(offset) }

    func cancel() {
        state.withLock {
            cancelled = true
            state.broadcast()
        }
    }
}
