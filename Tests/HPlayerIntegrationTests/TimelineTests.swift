import Foundation
import HPlayerKit
import HPlayerTestSupport
import Testing

extension Playback {
    @Suite(.realTime) struct Timeline {
        @Test("A soundtrack shorter than its picture: the picture plays on to its end without a stall")
        func soundtrackEndsBeforeThePicture() async throws {
            // 8 s of 50 fps picture: more than the 256-packet queue holds, so reading is blocked
            // on it long before the file ends; the sound stops after 1 s.
            let clip = try Fixtures.clip("short-soundtrack.mp4", [
                "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=50:duration=8",
                "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1",
                "-c:v", "libx264", "-preset", "ultrafast", "-g", "50", "-c:a", "aac"])
            let session = PlayerSession(url: clip, name: "short-soundtrack")
            try await session.playToEnd(timeout: 20)
            let frames = session.presentedFrames
            #expect(frames.count == 400)
            let longest = zip(frames, frames.dropFirst()).map { $1.presentedAt - $0.presentedAt }.max() ?? 0
            print(String(format: "short soundtrack: longest wait between frames %.1f ms", longest * 1000))
            // Frames are 20 ms apart; a stall where the sound ends (what this catches) is 140 ms or more.
            #expect(longest < 0.1, "a stall where the sound ended")
            #expect(!session.events.dropFirst(4).contains(.loadStateChanged(.loading)), "went back to loading")
        }

        @Test("Timestamps that jump (a spliced transport stream) play on without a gap or a stall",
              arguments: [("forward", 0.0, 50_000.0), ("back", 20_000.0, 0.0)])
        func timestampJumps(_ name: String, _ firstStart: Double, _ secondStart: Double) async throws {
            func part(_ index: Int, startingAt start: Double) throws -> String {
                try Fixtures.clip("splice-\(name)-\(index).ts", [
                    "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2",
                    "-f", "lavfi", "-i", "sine=frequency=\(440 * index):sample_rate=48000:duration=2",
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-c:a", "aac", "-output_ts_offset", "\(start)"])
            }
            let spliced = Fixtures.newFolder("splice") + "/spliced.ts"
            let bytes = try Data(contentsOf: URL(fileURLWithPath: part(1, startingAt: firstStart)))
                + Data(contentsOf: URL(fileURLWithPath: part(2, startingAt: secondStart)))
            try bytes.write(to: URL(fileURLWithPath: spliced))
            let session = PlayerSession(url: spliced, name: "splice")
            try await session.playToEnd(timeout: 15)
            let frames = session.presentedFrames
            #expect(frames.count == 100)
            let steps = zip(frames, frames.dropFirst()).map { $1.pts - $0.pts }
            #expect(steps.allSatisfy { abs($0 - 0.04) < 0.002 }, "pts jumps: \(steps.filter { abs($0 - 0.04) >= 0.002 })")
            let waits = zip(frames, frames.dropFirst()).map { $1.presentedAt - $0.presentedAt }
            #expect((waits.max() ?? 0) < 0.1, "a stall at the jump")
            let audio = try session.recordedAudio()
            #expect(Double(audio.samples.count / audio.channels) / Double(audio.rate) < 4.2, "silence filled the jump")
        }
    }
}
