import Foundation
import HPlayerKit
import HPlayerTestSupport
import Testing

extension Playback {
    @Suite struct Audio {
        @Test("The recorded WAV holds the source's samples, as ffmpeg decodes them", .realTime)
        func recordedSamplesMatchFFmpeg() async throws {
            let clip = try Clips.audioVideo(seconds: 3)
            let session = PlayerSession(url: clip, name: "wav")
            try await session.playToEnd()
            let recorded = try session.recordedAudio()
            let reference = try Fixtures.decodedSamples(clip, channels: 2)
            #expect(recorded.rate == 48000 && recorded.channels == 2)
            let recordedCount = recorded.samples.count / 2, referenceCount = reference.count / 2
            print("audio: \(recordedCount) samples recorded, ffmpeg decodes \(referenceCount)")
            #expect(abs(recordedCount - referenceCount) <= 1024, "more than one frame apart")
            let common = min(recorded.samples.count, reference.count)
            let largest = zip(recorded.samples.prefix(common), reference.prefix(common)).map { abs($0 - $1) }.max() ?? 1
            #expect(largest < 1e-6)
            // One callback log line per 1024 samples, each heard 1024 samples after the one before.
            let callbacks = session.audioCallbacks
            #expect(callbacks.count * 1024 == recordedCount)
            for (earlier, later) in zip(callbacks, callbacks.dropFirst()) {
                #expect(abs(later.playedAt - earlier.playedAt - 1024.0 / 48000) < 0.002)
                if let a = earlier.firstPts, let b = later.firstPts { #expect(abs(b - a - 1024.0 / 48000) < 1e-5) }
            }
        }

        @Test("Volume scales the samples by its cube, as mpv's; mute silences them")
        func volumeAndMute() async throws {
            let clip = try Clips.audioVideo(seconds: 2)
            let reference = try Fixtures.decodedSamples(clip, channels: 2)
            for (volume, muted, gain) in [(50, false, Float(0.125)), (80, true, Float(0))] {
                let session = PlayerSession(url: clip, name: "volume")
                session.player.volume = volume
                session.player.isMuted = muted
                try await session.playToEnd()
                let recorded = try session.recordedAudio().samples
                let common = min(recorded.count, reference.count)
                let largest = zip(recorded.prefix(common), reference.prefix(common)).map { abs($0 - $1 * gain) }.max() ?? 1
                #expect(common > 48000 && largest < 1e-6, "volume \(volume), muted \(muted): off by \(largest)")
            }
        }

        @Test("Audio is resampled to the rate, channels and sample format the output asks for")
        func resampledToTheOutputFormat() async throws {
            let clip = try Fixtures.clip("tone-mono-48k.m4a", ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=3",
                                                               "-c:a", "aac", "-b:a", "96k", "-ac", "1"])
            let folder = Fixtures.newFolder("resample")
            let output = RecordingAudioOutput(directory: folder, sampleFormat: .int16, sampleRate: 44100, channelCount: 2)
            let session = PlayerSession(url: clip, name: "resample", audioOutput: output)
            try await session.playToEnd()
            let recorded = try WAVFile.read(folder + "/audio.wav")
            #expect(recorded.rate == 44100 && recorded.channels == 2)
            let frames = recorded.samples.count / 2
            #expect(abs(frames - 3 * 44100) <= 2048)
            // 440 Hz: count rising zero crossings over the middle two seconds of the left channel.
            let left = stride(from: 0, to: recorded.samples.count, by: 2).map { recorded.samples[$0] }
            let middle = Array(left[(44100 / 2)..<(44100 / 2 + 2 * 44100)])
            let crossings = zip(middle, middle.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
            #expect(abs(Double(crossings) / 2 - 440) < 2)
            let right = stride(from: 1, to: recorded.samples.count, by: 2).map { recorded.samples[$0] }
            #expect(left == right)
        }
    }

    @Suite(.realTime) struct Sync {
        @Test("Each flash is presented within 10 ms of its beep")
        func flashesMeetTheirBeeps() async throws {
            let clip = try Clips.flashAndBeep()
            let session = PlayerSession(url: clip, name: "sync")
            try await session.playToEnd()
            let flashes = session.flashTimes
            let beeps = try session.beepTimes()
            print("sync: flashes at \(flashes), beeps at \(beeps)")
            #expect(flashes.count == 4)
            #expect(beeps.count == 4)
            for (flash, beep) in zip(flashes, beeps) {
                print(String(format: "sync: flash - beep = %+.2f ms", (flash - beep) * 1000))
                #expect(abs(flash - beep) < 0.010)
            }
        }
    }
}
