import Foundation
import HPlayerKit
import HPlayerTestSupport
import Testing

extension Playback {
    @Suite struct Speed {
        /// Two seconds of 440 Hz, sound only.
        static func tone() throws -> String {
            try Fixtures.clip("tone-2s.m4a", ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2", "-c:a", "aac", "-b:a", "128k"])
        }

        /// The left channel's sounding span in seconds, and the tone's frequency over its middle second.
        /// The silence an output fills in when the decoder falls behind (exact zeros; a slow
        /// machine, or one under a sanitizer) is left out: it is a gap in time, not in the media,
        /// and the tone goes on after it where it stopped.
        static func measure(_ audio: (samples: [Float], rate: Int, channels: Int)) -> (seconds: Double, frequency: Double) {
            let left = stride(from: 0, to: audio.samples.count, by: audio.channels).map { audio.samples[$0] }.filter { $0 != 0 }
            guard let first = left.firstIndex(where: { abs($0) > 0.01 }), let last = left.lastIndex(where: { abs($0) > 0.01 }),
                  last - first > audio.rate else { return (0, 0) }
            let middle = left[(first + last) / 2 - audio.rate / 2 ..< (first + last) / 2 + audio.rate / 2]
            let crossings = zip(middle, middle.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
            return (Double(last - first) / Double(audio.rate), Double(crossings))
        }

        @Test("At 2x and 0.5x a 440 Hz tone stays at 440 Hz and lasts half or twice as long", arguments: [2.0, 0.5])
        func pitchIsKept(speed: Double) async throws {
            var options = PlayerOptions()
            options.speed = speed
            let session = PlayerSession(url: try Self.tone(), options: options, name: "speed-tone")
            try await session.playToEnd(timeout: 30)
            let (seconds, frequency) = Self.measure(try session.recordedAudio())
            print("speed \(speed): \(seconds) s at \(frequency) Hz")
            #expect(abs(frequency - 440) <= 440 * 0.02, "\(frequency) Hz at \(speed)x")
            #expect(abs(seconds - 2 / speed) <= 2 / speed * 0.02, "\(seconds) s at \(speed)x")
        }

        /// Within 20 ms of its beep; 30 at 0.25x, where the stretch smears an onset by ±15 ms of its own.
        @Test("At 0.25x to 4x each flash is presented within 20 ms of its beep", .realTime, arguments: [0.5, 2, 0.25, 4])
        func flashesMeetTheirBeeps(speed: Double) async throws {
            var options = PlayerOptions()
            options.speed = speed
            let session = PlayerSession(url: try Clips.flashAndBeep(), options: options, name: "speed-sync")
            try await session.playToEnd(timeout: 30)
            let flashes = session.flashTimes
            let beeps = try session.beepTimes()
            #expect(flashes.count == 4 && beeps.count == 4, "flashes \(flashes), beeps \(beeps)")
            for (flash, beep) in zip(flashes, beeps) {
                print(String(format: "speed %.1f: flash - beep = %+.2f ms", speed, (flash - beep) * 1000))
                #expect(abs(flash - beep) < (speed < 0.5 ? 0.030 : 0.020))
            }
        }

        @Test("A change while playing is heard within 100 ms, with no gap and no click", .realTime)
        func changeWhilePlaying() async throws {
            let session = PlayerSession(url: try Self.tone(), name: "speed-change")
            session.player.prepare()
            session.player.play()
            try await session.waitFor("started") { if case .started = $0 { true } else { false } }
            var changes: [(speed: Double, asked: Double)] = []
            for (wait, speed) in [(500, 2.0), (250, 0.5)] {
                try await Task.sleep(for: .milliseconds(wait))
                changes.append((speed, MonotonicClock.now()))
                session.player.speed = speed
            }
            try await session.waitForFinished()
            session.close()

            // Between two callbacks' first pts, against when each is heard, the media heard per
            // second: the old speed, the new, or a mix of the two in the callback where it changes,
            // whose share of new speed says where in it the new speed begins.
            let callbacks = session.audioCallbacks.filter { $0.firstPts != nil }
            var old = 1.0
            for change in changes {
                let heard = zip(callbacks, callbacks.dropFirst()).lazy.compactMap { earlier, later -> Double? in
                    let period = later.playedAt - earlier.playedAt
                    let newShare = ((later.firstPts! - earlier.firstPts!) / period - old) / (change.speed - old)
                    guard earlier.playedAt > change.asked, newShare > 0.1 else { return nil }
                    return earlier.playedAt + (1 - min(1, newShare)) * period
                }.first
                old = change.speed
                let delay = try #require(heard) - change.asked
                print(String(format: "speed %.1f heard after %.1f ms", change.speed, delay * 1000))
                #expect(delay < 0.1, "\(change.speed)x heard \(delay) s after it was asked")
            }

            let audio = try session.recordedAudio()
            let left = stride(from: 0, to: audio.samples.count, by: audio.channels).map { audio.samples[$0] }
            guard let first = left.firstIndex(where: { abs($0) > 0.01 }), let last = left.lastIndex(where: { abs($0) > 0.01 }) else {
                Issue.record("no sound")
                return
            }
            let sounding = left[first...last]
            // A gap: a run of silence. A click: a step between samples no 440 Hz tone at this level makes.
            let peak = sounding.map(abs).max() ?? 0
            let steepest = Float(2 * Double.pi * 440 / Double(audio.rate)) * peak
            var quietRun = 0, longestQuiet = 0
            for sample in sounding {
                quietRun = abs(sample) < 1e-4 ? quietRun + 1 : 0
                longestQuiet = max(longestQuiet, quietRun)
            }
            let largestStep = zip(sounding, sounding.dropFirst()).map { abs($1 - $0) }.max() ?? 0
            #expect(longestQuiet < audio.rate / 1000, "a gap of \(longestQuiet) samples")
            #expect(largestStep < steepest * 1.5, "a step of \(largestStep) where a sine's steepest is \(steepest)")
            let played = changes[1].asked - changes[0].asked
            let expected = (changes[0].asked - (callbacks.first?.playedAt ?? 0)) + played + (2 - 0.5 - 2 * played) / 0.5
            #expect(abs(Self.measure(audio).seconds - expected) < 0.2, "\(Self.measure(audio).seconds) s of sound, \(expected) expected")
        }

        /// From 1x to 0.25x, the 1x lead queued for the output is taken back and stretched four
        /// times as long, with the frame that follows: with FLAC's 4,608-sample frames that is
        /// more chunks than the output's queue holds. Before the fix, those past its capacity
        /// were dropped yet counted as queued, and the stage waited for good for room that never
        /// came: silence to the end, and no `finished`.
        @Test("From 1x to 0.25x while FLAC plays, the sound goes on to the end of the media, with no gap", .realTime,
              .timeLimit(.minutes(1)))
        func slowDownFromOneXOnLongFrames() async throws {
            let clip = try Fixtures.clip("tone-2s.flac", ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2",
                                                          "-ac", "2", "-c:a", "flac"])
            let session = PlayerSession(url: clip, name: "speed-slow-flac")
            session.player.prepare()
            session.player.play()
            try await session.waitFor("started") { if case .started = $0 { true } else { false } }
            try await Task.sleep(for: .milliseconds(300))
            session.player.speed = 0.25
            try await session.waitForFinished(timeout: 20)
            session.close()

            let lastHeard = session.audioCallbacks.compactMap(\.firstPts).max() ?? 0
            #expect(lastHeard > 1.9, "the sound stopped at \(lastHeard) s of 2")
            let audio = try session.recordedAudio()
            let left = stride(from: 0, to: audio.samples.count, by: audio.channels).map { audio.samples[$0] }
            let first = left.firstIndex { abs($0) > 0.01 } ?? 0, last = left.lastIndex { abs($0) > 0.01 } ?? 0
            var quietRun = 0, longestQuiet = 0
            for sample in left[first...last] {
                quietRun = abs(sample) < 1e-4 ? quietRun + 1 : 0
                longestQuiet = max(longestQuiet, quietRun)
            }
            #expect(longestQuiet < audio.rate / 1000, "a gap of \(longestQuiet) samples")
        }

        @Test("Without sound the picture follows the speed", .realTime)
        func pictureOnly() async throws {
            var options = PlayerOptions()
            options.speed = 2
            options.source.mediaKinds = [.video]
            let session = PlayerSession(url: try Clips.audioVideo(seconds: 2), options: options, name: "speed-video")
            try await session.playToEnd(timeout: 30)
            let frames = session.presentedFrames
            try #require(frames.count == 50)
            let wall = frames.last!.presentedAt - frames.first!.presentedAt
            #expect(abs(wall - (frames.last!.pts - frames.first!.pts) / 2) < 0.1, "\(wall) s for 1.96 s of media")
        }

        @Test("--speed out of range: one warning line, and playback goes on at 1x")
        func outOfRange() throws {
            let clip = try Self.tone()
            let folder = Fixtures.newFolder("speed-range")
            let result = try Command.run([Command.hplayer, clip, "--vo", "null", "--ao", "record:\(folder)", "--no-status", "--speed", "10"],
                                         timeout: 30)
            #expect(result.status == 0)
            #expect(result.stderr == "hplayer: warning: --speed 10.0: speed 10.0 is out of range (0.25 to 4.0): playing at 1x\n")
            #expect(abs(Self.measure(try WAVFile.read(folder + "/audio.wav")).seconds - 2) < 0.05)
        }
    }
}
