import Foundation
import HPlayerKit
import HPlayerTestSupport
import Testing

extension Playback {
    @Suite struct Lifecycle {
        @Test("finished fires once, after the last frame and the last sample are out", .realTime)
        func finishedFiresOnce() async throws {
            let session = PlayerSession(url: try Clips.audioVideo(seconds: 2), name: "finished")
            session.player.prepare()
            session.player.play()
            let finishedAt = try await session.waitForFinished()
            try await Task.sleep(nanoseconds: 500_000_000)
            session.close()
            let frames = session.presentedFrames
            let lastSound = try #require(session.audioCallbacks.last { $0.firstPts != nil })
            #expect(session.events.filter { if case .finished = $0 { return true } else { return false } }.count == 1)
            #expect(frames.count == 50)
            #expect(finishedAt > frames.last!.presentedAt)
            // The last callback with sound was made a period before its first sample is heard.
            #expect(finishedAt > lastSound.playedAt - 1024.0 / 48000)
            let states = session.events.compactMap { event -> PlaybackState? in
                if case .playbackStateChanged(let state) = event { return state } else { return nil }
            }
            #expect(states == [.playing, .finished, .stopped])
            #expect(session.events.first.map { if case .loadStateChanged(.loading) = $0 { return true } else { return false } } == true)
        }

        @Test("After open the first frame is presented even while paused", .realTime)
        func previewWhilePaused() async throws {
            let session = PlayerSession(url: try Clips.audioVideo(seconds: 2), name: "preview")
            session.player.prepare()
            session.player.pause()
            #expect(await until { session.presentedFrames.count == 1 })
            try await Task.sleep(nanoseconds: 300_000_000)
            #expect(session.presentedFrames.count == 1)
            #expect(session.audioCallbacks.isEmpty, "sound played while paused")
            session.player.play()
            #expect(await until { session.presentedFrames.count > 10 })
            #expect(session.presentedFrames[1].pts == 0.04, "the previewed frame came again, or one was skipped")
            session.close()
        }

        @Test("Pause stops the render loops and play resumes where it stood", .realTime)
        func pauseAndResume() async throws {
            let session = PlayerSession(url: try Clips.audioVideo(seconds: 3), name: "pause")
            session.player.prepare()
            session.player.play()
            #expect(await until { session.presentedFrames.count > 20 })
            session.player.pause()
            #expect(await until { session.player.playbackState == .paused })
            let position = session.player.status.position
            let frames = session.presentedFrames.count
            let callbacks = session.audioCallbacks.count
            try await Task.sleep(nanoseconds: 400_000_000)
            #expect(session.presentedFrames.count == frames)
            #expect(session.audioCallbacks.count == callbacks)
            #expect(abs(session.player.status.position - position) < 0.001, "position moved while paused")
            session.player.play()
            try await session.waitForFinished()
            session.close()
            #expect(session.presentedFrames.count == 75)
            #expect(session.player.status.droppedFrames == 0)
        }

        @Test("Steady playback allocates no packets or frames and copies no picture: the pools stop growing, none of the 250 pictures decoded is converted, and each one presented lies in one of libavcodec's pooled buffers, a few reused throughout")
        func poolsStayFlat() async throws {
            let output = PictureBufferOutput()
            let session = PlayerSession(url: try Clips.audioVideo(seconds: 10), name: "pool",
                                        videoOutput: output, audioOutput: NullAudioOutput())
            session.player.prepare()
            session.player.play()
            // By 3 s the queues hold what they will hold: the read loop is seconds ahead.
            #expect(await until { session.player.status.position >= 3 })
            let steady = session.player.pooledObjectCount
            try await session.waitForFinished()
            let atEnd = session.player.pooledObjectCount
            let status = session.player.status
            session.close()
            // The output takes the decoder's format: its reference-counted picture is handed on, not copied into another.
            #expect(status.decodedVideoFrames == 250 && status.convertedVideoFrames == 0,
                    "\(status.decodedVideoFrames) decoded, \(status.convertedVideoFrames) converted")
            let pictures = output.pictures
            print("pictures: \(pictures.count) presented from \(pictures.addresses.count) buffers, \(pictures.unpooled) outside a pool")
            #expect(pictures.count >= 200)
            #expect(pictures.unpooled == 0, "a picture was presented from memory allocated for it: a copy")
            // The decoder's pool: its references, the frame queue's 8 and its threads' own, reused.
            // (The address count alone would not show a copy: malloc hands freed memory out again.
            // A copy made per picture with av_frame_get_buffer, tried, came from 13 addresses,
            // and all 250 outside a pool.)
            #expect(pictures.addresses.count <= 32)
            print("pools: \(steady) packet and frame wrappers made by 3 s, \(atEnd) by the end (7 s more: 175 video and 328 audio frames)")
            // Bounded by the queues (256 packets per track, 8 video and 16 audio frames) and a few in flight.
            #expect(atEnd <= 2 * 256 + 8 + 16 + 32)
            #expect(atEnd - steady <= 8)
        }

        /// Steady playback's audio callbacks take one lock each at most (the tempo stage's hand-off,
        /// which no one holds across a decode), at 1x and stretched: the clock and the notes they
        /// post take none. Counted by the debug build's lock probe.
        @Test("Each audio callback takes one lock at most, at 1x and at 1.5x", arguments: [1.0, 1.5])
        func audioCallbackTakesOneLock(speed: Double) async throws {
            var options = PlayerOptions()
            options.speed = speed
            let session = PlayerSession(url: try Clips.audioVideo(seconds: 3), options: options, name: "locks",
                                        videoOutput: NullVideoOutput(), audioOutput: NullAudioOutput())
            try await session.playToEnd()
            let counts = try #require(session.player.audioCallbackLocks, "the test build counts locks")
            #expect(counts.callbacks > 50)
            #expect(counts.mostLocks == 1)
        }

        @Test("Open and close 200 times: resident memory does not grow")
        func openAndClose200Times() async throws {
            let clip = try Clips.audioVideo(seconds: 2)
            func cycle() async throws {
                let player = Player(url: clip, audioOutput: NullAudioOutput(), videoOutput: NullVideoOutput())
                let events = player.events()
                player.prepare()
                player.play()
                for await event in events {
                    if case .seekDone = event { break }
                    if case .loadStateChanged(.playable) = event { break }
                    if case .finished = event { break }
                }
                player.close()
            }
            for _ in 0..<20 { try await cycle() }
            let warmed = residentMemory()
            for _ in 20..<200 { try await cycle() }
            let after = residentMemory()
            print("memory: resident \(warmed / 1024) KiB after 20 open/close cycles, \(after / 1024) KiB after 200 (\((after - warmed) / 1024) KiB more)")
            #expect(after - warmed < 8 * 1024 * 1024)
        }
    }
}
