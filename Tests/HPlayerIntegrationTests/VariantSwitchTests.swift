import Foundation
import HPlayerKit
import HPlayerTestSupport
import Testing

extension Playback {
    /// Variant switches as a viewer meets them: the real player at 1x, the fault server replaying
    /// a trace that forces them (fast, slow, fast again).
    @Suite(.timeLimit(.minutes(3)), .realTime) struct VariantSwitching {
        /// The 3-variant ladder of NetworkPlayback, 36 s long: room for a switch down and, past
        /// auto's 20 s hold, one back up.
        static let ladder = HLSPlayback.makeLadder("hls-ladder-36s", fragmented: false, seconds: 36)

        /// Per presented frame, its pts less the pts of the sound heard as it was presented (from
        /// the callback before it, at 1x); nil where no sound was playing then (a stall).
        static func avOffsets(_ session: PlayerSession) -> [(pts: Double, offset: Double?)] {
            let callbacks = session.audioCallbacks.filter { $0.firstPts != nil }
            return session.presentedFrames.map { frame in
                guard let heard = callbacks.last(where: { $0.playedAt <= frame.presentedAt }),
                      let first = heard.firstPts, frame.presentedAt - heard.playedAt < 0.1 else { return (frame.pts, nil) }
                return (frame.pts, frame.pts - (first + frame.presentedAt - heard.playedAt))
            }
        }

        @Test("High, low, high (a 16 Mb/s link that falls to 480 kb/s for 8 s): every frame is its variant's own, the sound has no gap over 20 ms, and A/V stays within a frame across each switch")
        func highLowHigh() async throws {
            let folder = try Self.ladder.get()
            let server = try FaultServer(["--trace-clock", "--rate-schedule", "4:2000000,8:60000,0:2000000"], root: folder)
            let log = HLSPlayback.VariantLog()
            var options = PlayerOptions()
            options.source.network.monitor = log.monitor
            // A short read-ahead, so that segments are fetched as they are played.
            options.source.readAhead = ReadAhead(seconds: 4)
            let session = PlayerSession(url: server.url("master.m3u8"), options: options, name: "abr-high-low-high")
            try await session.playToEnd(timeout: 150)

            let whole = server.requests.filter { $0.path.hasSuffix(".ts") && $0.outcome == "complete" }.map { String($0.path.dropFirst()) }
            let variants = whole.map { Int($0.dropFirst().prefix { $0 != "/" })! }
            let chosen = log.bandwidths.withLock { $0 }
            try #require(whole.count == 18, "\(whole)")
            // Up, down and up again, as the trace forces.
            let changes = zip(variants, variants.dropFirst()).enumerated().filter { $1.0 != $1.1 }
            let directions = changes.map { $1.1 > $1.0 }
            let firstUp = directions.firstIndex(of: true)
            let downAfter = firstUp.flatMap { directions[($0 + 1)...].firstIndex(of: false) }
            let upAgain = downAfter.flatMap { directions[($0 + 1)...].firstIndex(of: true) }
            #expect(upAgain != nil, "variants \(variants); announced \(chosen)")

            // Every frame is its segment's variant's own, none repeated or missing.
            #expect(session.presentedFrames.map(\.md5) == (try HLSPlayback.frameMD5s(ofSegments: whole, in: Self.ladder)))

            // No gap in the sound: the tone never falls silent for 20 ms (from its start to its
            // end: the output's silence after the end is not the stream's).
            let audio = try session.recordedAudio()
            var left = stride(from: 0, to: audio.samples.count, by: audio.channels).map { audio.samples[$0] }
            left.removeLast(left.count - 1 - (left.lastIndex { abs($0) >= 0.002 } ?? left.count - 1))
            var longestSilence = 0, run = 0
            for sample in left.dropFirst(audio.rate / 2) {
                run = abs(sample) < 0.002 ? run + 1 : 0
                longestSilence = max(longestSilence, run)
            }
            #expect(Double(longestSilence) / Double(audio.rate) < 0.020, "a silence of \(longestSilence) samples")
            #expect(Double(left.count) / Double(audio.rate) > 35.5, "\(left.count) samples of sound")

            // A/V within a frame over the second on each side of every switch (2 s segments,
            // from the first frame's pts).
            let offsets = Self.avOffsets(session)
            let start = session.presentedFrames.first?.pts ?? 0
            for (index, _) in changes {
                let boundary = start + Double(index + 1) * 2
                let near = offsets.filter { abs($0.pts - boundary) <= 1 }
                let measured = near.compactMap(\.offset)
                #expect(measured.count >= near.count / 2, "little sound around the switch at \(boundary) s")
                let worst = measured.map(abs).max() ?? 0
                #expect(worst < 0.040, "A-V up to \(worst) s around the switch at \(boundary) s")
            }
        }
    }
}
