import Foundation
import HPlayerKit
import HPlayerTestSupport
import Testing

extension Playback {
    @Suite struct Seeking {
        /// 6 s of picture (25 fps, a key frame each second) and tone.
        static func clip() throws -> String { try Clips.audioVideo(seconds: 6) }

        /// 8 s of 25 fps MPEG-TS with a key frame every `keyFrameInterval` pictures, and ffmpeg's
        /// MD5 of each frame.
        static func transportStream(keyFrameInterval: Int) throws -> (clip: String, md5s: [String]) {
            let clip = try Fixtures.clip("key-frame-every-\(keyFrameInterval).ts", [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=8",
                "-c:v", "libx264", "-preset", "ultrafast", "-g", "\(keyFrameInterval)", "-bf", "0"])
            return (clip, try Fixtures.frameMD5s(clip))
        }

        /// libavformat seeks MPEG-TS by timestamps alone, landing on any packet: in a stream
        /// whose only key frame is its first, the seek must go back to it (before, no frame
        /// at all could be decoded there).
        @Test("--start 5 and a seek to 6.48 in an MPEG-TS file whose only key frame is its first show ffmpeg's frame at each time",
              .timeLimit(.minutes(1)))
        func exactInATransportStreamOfOneKeyFrame() async throws {
            let (clip, expected) = try Self.transportStream(keyFrameInterval: 500)
            let folder = Fixtures.newFolder("ts-one-key")
            let result = try Command.run([Command.hplayer, clip, "--start", "5", "--vo", "record:\(folder)", "--ao", "null", "--no-status"],
                                         timeout: 30)
            #expect(result.status == 0, "\(result.stderr)")
            let frames = RecordedRun(folder: folder).presentedFrames
            #expect(frames.first?.md5 == expected[125], "the first frame shown is not the one at 5 s")
            #expect(frames.map(\.md5) == Array(expected[125...]))
            let session = PlayerSession(url: clip, name: "ts-one-key-seek")
            defer { session.close() }
            session.player.prepare()
            session.player.play()
            try await session.waitFor("started") { if case .started = $0 { true } else { false } }
            // Paused: the frame it lands on is the last presented.
            session.player.pause()
            let before = session.eventCount
            session.player.seek(to: 6.48, mode: .exact)
            try await session.waitForSeekDone(after: before, timeout: 20)
            // MPEG-TS starts at 1.4 s, as ffmpeg writes it.
            let presented = RecordedRun(folder: session.folder).presentedFrames
            let landed = presented.last
            #expect(landed.map { abs($0.pts - 7.88) < 0.001 } ?? false, "landed on \(String(describing: landed?.pts))")
            #expect(landed?.md5 == expected[162])
        }

        @Test("A key frame seek to 5.5 s in an MPEG-TS file with a key frame each second lands on the one at 5 s, not the start",
              .timeLimit(.minutes(1)))
        func keyFrameInATransportStream() async throws {
            let (clip, expected) = try Self.transportStream(keyFrameInterval: 25)
            let session = PlayerSession(url: clip, name: "ts-key-seek")
            defer { session.close() }
            session.player.prepare()
            session.player.play()
            try await session.waitFor("started") { if case .started = $0 { true } else { false } }
            session.player.pause()
            for (target, keyFrame) in [(5.5, 125), (2.2, 50)] {
                let before = session.eventCount
                session.player.seek(to: target, mode: .keyframe)
                try await session.waitForSeekDone(after: before, timeout: 20)
                let landed = RecordedRun(folder: session.folder).presentedFrames.last
                // MPEG-TS starts at 1.4 s, as ffmpeg writes it.
                #expect(landed.map { abs($0.pts - 1.4 - Double(keyFrame) / 25) < 0.001 } ?? false,
                        "a seek to \(target) landed on \(String(describing: landed?.pts))")
                #expect(landed?.md5 == expected[keyFrame])
            }
        }

        /// Opens `clip` (by default the 6 s one) paused and waits for the preview frame.
        private func pausedSession(_ name: String, clip: String? = nil,
                                   options: PlayerOptions = PlayerOptions()) async throws -> PlayerSession {
            let session = PlayerSession(url: try clip ?? Self.clip(), options: options, name: name)
            session.player.prepare()
            session.player.pause()
            try await session.waitForPrepared()
            #expect(await until { session.presentedFrames.count == 1 }, "no preview frame while paused")
            #expect(session.presentedFrames.first?.pts == 0)
            return session
        }

        /// Opens playing and waits until more than `frames` frames are presented.
        private func playingSession(_ name: String, frames: Int) async throws -> PlayerSession {
            let session = PlayerSession(url: try Self.clip(), name: name)
            session.player.prepare()
            session.player.play()
            try #require(await until { session.presentedFrames.count > frames }, "no playback")
            return session
        }

        /// Seeks a paused session and waits for the seek to land; the pts of the frame it presented.
        private func seekWhilePaused(_ session: PlayerSession, to target: Double, mode: SeekMode) async throws -> Double? {
            let mark = session.eventCount
            let presented = session.presentedFrames.count
            session.player.seek(to: target, mode: mode)
            try await session.waitForSeekDone(after: mark)
            #expect(await until { session.presentedFrames.count == presented + 1 })
            return session.presentedFrames.last?.pts
        }

        @Test("Exact seek while paused presents the first frame at or after the target, still paused")
        func exactSeekWhilePaused() async throws {
            let session = try await pausedSession("exact")
            let target = 2.5
            let expected = try Fixtures.framePts(Self.clip()).first { $0 >= target - 1e-6 }!
            #expect(try await seekWhilePaused(session, to: target, mode: .exact) == expected)
            #expect(session.player.playbackState == .paused)
            try await Task.sleep(nanoseconds: 300_000_000)
            #expect(session.presentedFrames.count == 2, "frames presented while paused")
            #expect(abs(session.player.status.position - expected) < 0.001)
            session.close()
        }

        @Test("Fast seek lands on the key frame at or before the target")
        func keyframeSeek() async throws {
            let session = try await pausedSession("keyframe")
            let target = 2.7
            let keyframe = try Fixtures.framePts(Self.clip(), keyframesOnly: true).last { $0 <= target }!
            #expect(keyframe == 2.0)
            #expect(try await seekWhilePaused(session, to: target, mode: .keyframe) == keyframe)
            session.close()
        }

        @Test("A key-frame seek while playing: sound and picture start together at the key frame")
        func keyframeSeekWhilePlaying() async throws {
            let session = try await playingSession("keyframe-playing", frames: 10)
            let mark = session.eventCount
            session.player.seek(to: 2.7, mode: .keyframe)
            let requested = MonotonicClock.now()  // the seek has returned: nothing older is presented from here
            try await session.waitForSeekDone(after: mark)
            // Playback stood under 1 s when the seek was asked: the first sound past 1 s is the seek's.
            #expect(await until { session.audioCallbacks.contains { ($0.firstPts ?? 0) > 1 } })
            session.close()
            // The demuxer puts the sound a few frames before the key frame (its B-frame delay):
            // that sound is skipped, not played while the picture waits.
            #expect(session.presentedFrames.first { $0.presentedAt > requested }?.pts == 2.0)
            let firstHeard = session.audioCallbacks.first { ($0.firstPts ?? 0) > 1 }?.firstPts ?? 0
            #expect(abs(firstHeard - 2.0) < 0.001, "sound after the seek starts at \(firstHeard)")
        }

        @Test("Seek while playing: nothing from before the seek is presented after it", .realTime)
        func seekWhilePlaying() async throws {
            let session = try await playingSession("playing", frames: 25)
            session.player.seek(to: 4.3, mode: .exact)
            let requested = MonotonicClock.now()  // the seek has returned: nothing older is presented from here
            try await session.waitForFinished()
            session.close()
            let after = session.presentedFrames.filter { $0.presentedAt > requested }
            #expect(after.first?.pts == 4.32)
            #expect(after.allSatisfy { $0.pts >= 4.3 })
            #expect(zip(after, after.dropFirst()).allSatisfy { $0.pts < $1.pts })
            #expect(after.count == 42, "every frame from 4.32 to 5.96")
        }

        @Test("Seek after finished restarts reading and plays to the end again", .realTime)
        func seekAfterFinished() async throws {
            let session = PlayerSession(url: try Clips.audioVideo(seconds: 2), name: "after-finished")
            session.player.prepare()
            session.player.play()
            try await session.waitForFinished()
            #expect(session.player.playbackState == .finished)
            let mark = session.eventCount
            session.player.seek(to: 1.0, mode: .exact)
            let requested = MonotonicClock.now()  // the seek has returned: nothing older is presented from here
            try await session.waitForSeekDone(after: mark)
            try await session.waitForFinished(after: mark)
            session.close()
            let replayed = session.presentedFrames.filter { $0.presentedAt > requested }
            #expect(replayed.map(\.pts) == (25..<50).map { Double($0) / 25 })
            #expect(session.events.filter { if case .finished = $0 { return true } else { return false } }.count == 2)
        }

        @Test("Repeated seeks: the last one wins")
        func repeatedSeeks() async throws {
            let session = PlayerSession(url: try Self.clip(), name: "repeated")
            session.player.prepare()
            session.player.play()
            try #require(await until { session.presentedFrames.count > 5 }, "no playback")
            for target in [1.0, 3.0, 2.0, 5.0] {
                session.player.seek(to: target, mode: .exact)
                try await Task.sleep(nanoseconds: 20_000_000)
            }
            let mark = session.eventCount
            session.player.seek(to: 1.5, mode: .exact)
            let requested = MonotonicClock.now()  // the seek has returned: nothing older is presented from here
            try await session.waitForSeekDone(after: mark)
            try await Task.sleep(nanoseconds: 500_000_000)
            session.close()
            let after = session.presentedFrames.filter { $0.presentedAt > requested }
            #expect(after.first?.pts == 1.52)
            #expect(after.allSatisfy { $0.pts >= 1.5 && $0.pts < 3 })
            let done = session.events.dropFirst(mark).compactMap { event -> Double? in
                if case .seekDone(let position) = event { return position } else { return nil }
            }
            #expect(done.first.map { abs($0 - 1.52) < 0.001 } == true)
        }

        @Test("A seek past the end clamps to the last frame")
        func seekPastTheEndClamps() async throws {
            let session = try await pausedSession("clamp")
            #expect(try await seekWhilePaused(session, to: 100, mode: .exact) == 5.96)
            session.close()
        }

        /// A 1080p clip of noise, whose pictures take tens of ms each to decode.
        func slowPicturesClip() throws -> String {
            try Fixtures.clip("noise-1080p-1s.mp4", [
                "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=25:duration=1,noise=alls=40:allf=t",
                "-c:v", "libx264", "-preset", "veryfast", "-b:v", "40M", "-bf", "2", "-g", "25", "-pix_fmt", "yuv420p"])
        }

        @Test("A frame step asked while its picture is still being decoded is shown when the picture comes: paused on a 1080p clip of noise whose pictures take tens of ms each, a step right after an exact seek lands on the next frame")
        func stepWaitsForItsPicture() async throws {
            let session = try await pausedSession("step-slow", clip: try slowPicturesClip())
            for (target, next) in [(0.4, 0.44), (0.6, 0.64)] {
                let mark = session.eventCount
                let presented = session.presentedFrames.count
                session.player.seek(to: target, mode: .exact)
                try await session.waitForSeekDone(after: mark)
                try #require(await until { session.presentedFrames.count == presented + 1 })
                #expect(session.presentedFrames.last?.pts == target)
                session.player.stepFrame(forward: true)
                #expect(await until { session.presentedFrames.count == presented + 2 }, "the step after the seek to \(target) showed nothing")
                #expect(session.presentedFrames.last?.pts == next)
            }
            #expect(session.player.playbackState == .paused)
            session.close()
        }

        @Test("Frame steps asked together are each shown: paused on the 1080p noise clip, three steps asked at once right after an exact seek to 0.4 present 0.44, 0.48 and 0.52, in order, and the position ends at 0.52")
        func stepsAskedTogetherAreEachShown() async throws {
            let session = try await pausedSession("steps-together", clip: try slowPicturesClip())
            let mark = session.eventCount
            session.player.seek(to: 0.4, mode: .exact)
            try await session.waitForSeekDone(after: mark)
            try #require(await until { session.presentedFrames.last?.pts == 0.4 })
            let presented = session.presentedFrames.count
            for _ in 0..<3 { session.player.stepFrame(forward: true) }
            #expect(await until { session.presentedFrames.count >= presented + 3 }, "steps shown: \(session.presentedFrames.dropFirst(presented).map(\.pts))")
            #expect(session.presentedFrames.dropFirst(presented).map(\.pts) == [0.44, 0.48, 0.52])
            #expect(abs(session.player.status.position - 0.52) < 0.001)
            #expect(session.player.playbackState == .paused)
            session.close()
        }

        @Test("Frame steps: . presents the next frames while paused, , the one before; playing goes on from there", .realTime)
        func frameSteps() async throws {
            let session = try await pausedSession("step")
            for expected in [0.04, 0.08, 0.12] {
                let presented = session.presentedFrames.count
                session.player.stepFrame(forward: true)
                try #require(await until { session.presentedFrames.count == presented + 1 }, "no frame after a step")
                #expect(session.presentedFrames.last?.pts == expected)
                #expect(abs(session.player.status.position - expected) < 0.001)
            }
            // Back: an exact seek from the key frame that keeps the frame before the one shown.
            for expected in [0.08, 0.04] {
                let mark = session.eventCount
                session.player.stepFrame(forward: false)
                try await session.waitForSeekDone(after: mark)
                #expect(await until { session.presentedFrames.last?.pts == expected }, "step back did not land on \(expected)")
            }
            session.player.stepFrame(forward: true)
            #expect(await until { session.presentedFrames.last?.pts == 0.08 })
            #expect(session.player.playbackState == .paused)
            // The picture stepped on while the sound stood still: playing again starts both at 0.08.
            let mark = session.eventCount
            let resumed = MonotonicClock.now()
            session.player.play()
            try await session.waitForSeekDone(after: mark)
            #expect(await until { session.presentedFrames.filter { $0.presentedAt > resumed }.count > 10 })
            session.close()
            let after = session.presentedFrames.filter { $0.presentedAt > resumed }
            #expect(after.first?.pts == 0.08, "playing again starts at the frame shown")
            #expect(zip(after, after.dropFirst()).allSatisfy { abs($1.pts - $0.pts - 0.04) < 1e-6 })
            let firstHeard = session.audioCallbacks.first { $0.playedAt > resumed && ($0.firstPts ?? -1) > 0 }?.firstPts
            #expect(firstHeard.map { abs($0 - 0.08) < 0.001 } == true, "sound resumed at \(firstHeard ?? -1)")
        }

        /// Plays `url` with an A-B loop until B has been reached twice (once after playing up to it,
        /// once after a pass from A), then clears the loop, so the third pass runs on to the end.
        private func playTwoABPasses(_ url: String, _ loop: ABLoop, name: String) async throws -> PlayerSession {
            var options = PlayerOptions()
            options.abLoop = loop
            let session = PlayerSession(url: url, options: options, name: name)
            session.player.prepare()
            session.player.play()
            try await session.waitFor("two passes") { $0 == .loopDone(count: 2) }
            session.player.abLoop = ABLoop()
            try await session.waitForFinished()
            session.close()
            return session
        }

        @Test("A-B loop: playback repeats from A to B, each pass counted, nothing past B shown", .realTime)
        func abLoop() async throws {
            let session = try await playTwoABPasses(try Self.clip(), ABLoop(a: 1.0, b: 1.6), name: "ab-loop")
            let frames = (0..<150).map { Double($0) / 25 }
            let expected = Array(frames[0..<40]) + Array(frames[25..<40]) + Array(frames[25...])
            #expect(session.presentedFrames.map(\.pts) == expected, "events: \(session.events)")
        }

        @Test("A-B loop with no picture: the sound stops at B and goes back to A")
        func abLoopOfSoundAlone() async throws {
            let clip = try Fixtures.clip("tone-4s.m4a", ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=4", "-c:a", "aac"])
            let session = try await playTwoABPasses(clip, ABLoop(a: 1.0, b: 2.0), name: "ab-loop-sound")
            // Each callback's first sample: from 0 up to B, from A up to B, then from A to the end.
            let starts = session.audioCallbacks.compactMap(\.firstPts)
            let wraps = zip(starts, starts.dropFirst()).enumerated().filter { $0.element.1 < $0.element.0 }
            #expect(wraps.count == 2, "went back \(wraps.count) times")
            for (index, _) in wraps {
                #expect(starts[index] < 2.0 && starts[index] > 2.0 - 0.03, "the pass before a wrap ended at \(starts[index])")
                #expect(abs(starts[index + 1] - 1.0) < 0.001, "a pass began at \(starts[index + 1])")
            }
            #expect((starts.last ?? 0) > 3.9, "cleared, the sound played on to the end")
        }

        @Test("A seek past the end goes to the start when looping")
        func seekPastTheEndLoops() async throws {
            var options = PlayerOptions()
            options.source.isLooping = true
            let session = try await pausedSession("clamp-loop", options: options)
            #expect(try await seekWhilePaused(session, to: 3, mode: .exact) == 3)
            #expect(try await seekWhilePaused(session, to: 100, mode: .exact) == 0)
            session.close()
        }
    }

    @Suite(.realTime) struct Looping {
        @Test("Looping goes on from the start with no gap in picture or sound")
        func twoPassesWithNoGap() async throws {
            let clip = try Clips.audioVideo(seconds: 2)
            let expected = try Fixtures.frameMD5s(clip)
            var options = PlayerOptions()
            options.source.isLooping = true
            let session = PlayerSession(url: clip, options: options, name: "loop")
            session.player.prepare()
            session.player.play()
            try await session.waitFor("loopDone") { $0 == .loopDone(count: 1) }
            try #require(await until { session.presentedFrames.count >= expected.count + 40 }, "no second pass")
            session.close()
            let frames = session.presentedFrames
            #expect(frames.prefix(expected.count).map(\.md5) == expected)
            #expect(frames.dropFirst(expected.count).prefix(40).map(\.md5) == Array(expected.prefix(40)))
            let last = frames[expected.count - 1], next = frames[expected.count]
            print(String(format: "loop: first frame of pass 2 presented %.1f ms after the last of pass 1", (next.presentedAt - last.presentedAt) * 1000))
            #expect(next.pts == 0)
            #expect(next.presentedAt - last.presentedAt <= 0.04 + 0.01, "more than a frame's duration between passes")
            #expect(session.player.status.droppedFrames == 0)

            let audio = try session.recordedAudio()
            let left = stride(from: 0, to: audio.samples.count, by: 2).map { audio.samples[$0] }
            var longestSilence = 0, run = 0
            for sample in left.dropFirst(audio.rate / 2) {
                run = abs(sample) < 0.002 ? run + 1 : 0
                longestSilence = max(longestSilence, run)
            }
            print("loop: longest silence in the sound \(Double(longestSilence) / Double(audio.rate) * 1000) ms")
            #expect(Double(longestSilence) / Double(audio.rate) < 0.020)
            let wrapped = session.audioCallbacks.compactMap(\.firstPts)
            #expect(zip(wrapped, wrapped.dropFirst()).contains { $1 < $0 }, "audio pts never went back to the start")
        }
    }
}
