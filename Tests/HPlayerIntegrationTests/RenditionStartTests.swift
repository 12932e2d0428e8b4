import Foundation
@testable import HPlayerKit
import HPlayerTestSupport
import Testing

extension Playback {
    /// Issue 40's race, made to happen every time: the audio tempo stage's thread descheduled
    /// between taking the sound's first frame from the track and queuing it for the output (a
    /// pause injected there, as a busy machine's scheduler can make it). Before the fix, the
    /// output's first callbacks found nothing queued and played silence ahead of the sound, and
    /// the timeline could start at the second frame: every recorded sample came out shifted.
    @Suite(.timeLimit(.minutes(2))) struct RenditionStart {
        /// Plays the renditions ladder's lowest variant, its sound from the rendition, with the
        /// stage's hand-over paused `pause` ms; the samples recorded and ffmpeg's of the rendition.
        static func play(handOverPause pause: Int, name: String) async throws -> (recorded: [Float], reference: [Float]) {
            let folder = try HLSPlayback.renditions.get()
            let server = try FaultServer(root: folder)
            var options = PlayerOptions()
            options.source.network.hlsBitrate = .min
            AudioTempoStage.handOverPauseForTests.store(pause, ordering: .relaxed)
            defer { AudioTempoStage.handOverPauseForTests.store(0, ordering: .relaxed) }
            let session = PlayerSession(url: server.url("master.m3u8"), options: options, name: name)
            try await session.playToEnd(timeout: 60)
            let recorded = try session.recordedAudio()
            return (recorded.samples, try Fixtures.decodedSamples("\(folder)/sEnglish/index.m3u8", channels: recorded.channels))
        }

        @Test("An audio rendition whose first frame reaches the output's queue 300 ms late: the recorded samples are still ffmpeg's of the rendition from its first, none shifted, no silence ahead")
        func firstFrameHandedOverLate() async throws {
            let (recorded, reference) = try await Self.play(handOverPause: 300, name: "rendition-late-first-frame")
            let common = min(recorded.count, reference.count)
            let differing = zip(recorded.prefix(common), reference.prefix(common)).filter { abs($0 - $1) >= 1e-6 }.count
            let leadingSilence = recorded.prefix { $0 == 0 }.count - reference.prefix { $0 == 0 }.count
            #expect(common == reference.count && differing == 0,
                    "\(differing) of \(common) samples differ; \(leadingSilence) more leading zero samples than ffmpeg's")
        }
    }
}
