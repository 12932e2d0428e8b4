import Foundation
import HPlayerKit
import HPlayerTestSupport
import Testing

extension Playback {
    @Suite(.realTime) struct AudioTrackSwitch {
        @Test("Switching the soundtrack while playing: the other tone from where playback stood, the picture going on")
        func switchWhilePlaying() async throws {
            let session = PlayerSession(url: try Clips.twoSoundtracks(seconds: 4), name: "switch-audio")
            session.player.prepare()
            session.player.play()
            try await session.waitFor("started") { if case .started = $0 { true } else { false } }
            try await Task.sleep(for: .milliseconds(800))
            let standing = session.player.status.position
            let asked = MonotonicClock.now()
            try session.player.selectAudioTrack(2)
            #expect(throws: MediaError.self) { try session.player.selectAudioTrack(3) }
            try await session.waitForFinished()
            session.close()

            // Each callback's tone by its rising zero crossings: about 9 for 440 Hz, 19 for 880 Hz.
            let audio = try session.recordedAudio()
            let callbacks = session.audioCallbacks
            let tones: [(pts: Double, crossings: Int)] = callbacks.enumerated().compactMap { index, callback in
                guard let pts = callback.firstPts, (index + 1) * 1024 <= audio.samples.count else { return nil }
                let block = audio.samples[index * 1024 ..< (index + 1) * 1024]
                guard block.contains(where: { abs($0) > 0.01 }) else { return nil }
                return (pts, zip(block, block.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count)
            }
            let switched = try #require(tones.firstIndex { $0.crossings > 14 }, "no 880 Hz heard")
            #expect(tones[..<switched].allSatisfy { (8...11).contains($0.crossings) }, "440 Hz before the switch")
            // The last block holds the tone's end and silence.
            #expect(tones[(switched + 1) ..< tones.count - 1].allSatisfy { (17...21).contains($0.crossings) },
                    "880 Hz after it: \(tones[switched...].map(\.crossings))")

            #expect(abs(tones[switched].pts - standing) < 0.15, "the new soundtrack from \(tones[switched].pts), asked at \(standing)")
            #expect(tones.last.map { $0.pts > 3.9 } == true, "it plays to the end")

            // The picture: every frame after the switch in order, none skipped.
            let after = session.presentedFrames.filter { $0.presentedAt > asked }
            #expect(zip(after, after.dropFirst()).allSatisfy { $1.pts > $0.pts && $1.pts - $0.pts < 0.041 },
                    "frames after the switch: \(after.map(\.pts))")
            #expect(after.last?.pts == 3.96)
            // How long the switch held things up: under three callbacks (21 ms each) and three
            // frames (40 ms each); docs/measuring.md quotes the figures.
            let soundPause = zip(callbacks, callbacks.dropFirst()).map { $1.playedAt - $0.playedAt }.max() ?? 0
            let picturePause = zip(after, after.dropFirst()).map { $1.presentedAt - $0.presentedAt }.max() ?? 0
            print(String(format: "audio switch: longest wait between callbacks %.1f ms, between frames %.1f ms", soundPause * 1000, picturePause * 1000))
            #expect(soundPause < 0.064, "the sound stopped for \(soundPause) s at the switch")
            #expect(picturePause < 0.12, "the picture stopped for \(picturePause) s at the switch")
        }
    }
}
