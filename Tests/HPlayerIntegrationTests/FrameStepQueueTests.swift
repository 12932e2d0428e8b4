import CFFmpeg
@testable import HPlayerKit
import HPlayerTestSupport
import Testing

extension Playback {
    /// The renderer's paused steps, driven refresh by refresh with every picture already
    /// decoded, so which refresh shows what does not depend on the decoder's speed.
    @Suite struct FrameStepQueue {
        /// A paused video renderer over a track holding the whole of a 1 s, 25 fps clip, decoded.
        final class PausedRenderer {
            let track: Track
            let notifier = RenderNotifier { _, _ in }
            let renderer: VideoRenderer
            private let container: InputContainer

            init() throws {
                let clip = try Fixtures.clip("steps-25fps-1s.mp4", [
                    "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1",
                    "-c:v", "libx264", "-g", "25", "-pix_fmt", "yuv420p"])
                let container = InputContainer(url: clip)
                self.container = container
                // Closed here if setting up fails, as `close` is then never called.
                var isSetUp = false
                defer { if !isSetUp { container.close() } }
                try container.open(fullAnalysis: true)
                let index = container.chosenStream(of: .video, number: nil)
                let stream = try #require(container.ownStream(Int(index)))
                track = Track(kind: .video, stream: stream, index: index, decoder: try SoftwareDecoder(stream: stream, threads: 1),
                              startTime: 0, packetCapacity: 64, frameCapacity: 64)
                track.configureVideo(acceptedPixelFormats: nil)
                renderer = VideoRenderer(track: track, clock: MasterClock(), notifier: notifier, isUntimed: false,
                                         subtitles: SubtitleSelection())
                isSetUp = true
                while true {
                    let packet = track.packetPool.acquire()
                    guard container.readOwn(into: packet.avPacket) >= 0 else {
                        track.recycle(packet)
                        break
                    }
                    if packet.avPacket.pointee.stream_index == index {
                        #expect(track.packets.push(packet) == .pushed)
                    } else {
                        track.recycle(packet)
                    }
                }
                let end = track.packetPool.acquire()
                end.kind = .endOfStream
                #expect(track.packets.push(end) == .pushed)
                track.startDecoding()
                #expect(eventually(timeout: 20) { track.decodingFinishedSerial == 0 }, "the clip was not decoded")
                renderer.begin(serial: 0)
                renderer.setRunning(false, followsAudio: false, reportsLoops: false)
            }

            /// Refreshes at each of `times`: the pts presented (nil: none) and how far on each
            /// asks to be refreshed again (nil: not), in ms.
            func refresh(at times: [Double]) -> [(ptsMs: Int?, againInMs: Int?)] {
                times.map { time in
                    let refresh = renderer.refresh(at: time)
                    let ptsMs = refresh.frame.map { Self.milliseconds($0.pts) }
                    if let frame = refresh.frame { renderer.didPresent(frame, at: time) }
                    return (ptsMs, refresh.nextDeadline.map { Self.milliseconds($0 - time) })
                }
            }

            static func milliseconds(_ seconds: Double) -> Int { Int((seconds * 1000).rounded()) }

            func close() {
                track.close()
                notifier.close()
                container.close()
            }
        }

        @Test("Three steps asked before a paused refresh: three refreshes present the next three pictures in order, the first two asking to be refreshed again a frame's duration on (40 ms), the last not; a fourth presents nothing",
              .timeLimit(.minutes(1)))
        func stepsAskedTogetherAreCounted() throws {
            let paused = try PausedRenderer()
            for _ in 0..<3 { paused.renderer.requestStep() }
            let refreshes = paused.refresh(at: [100, 100.04, 100.08, 100.12])
            #expect(refreshes.map(\.ptsMs) == [0, 40, 80, nil])
            #expect(refreshes.map(\.againInMs) == [40, 40, nil, nil])
            paused.close()
        }

        @Test("A step asked before the paused preview is shown: the preview presents the first picture and asks to be refreshed again 40 ms on, when the step presents the next",
              .timeLimit(.minutes(1)))
        func stepAskedBeforeThePreviewFollowsIt() throws {
            let paused = try PausedRenderer()
            paused.renderer.requestPreview()
            paused.renderer.requestStep()
            let refreshes = paused.refresh(at: [100, 100.04, 100.08])
            #expect(refreshes.map(\.ptsMs) == [0, 40, nil])
            #expect(refreshes.map(\.againInMs) == [40, nil, nil])
            paused.close()
        }

        @Test("Steps asked and not shown are dropped by playing: after three steps, one shown, then playing and pausing again, a paused refresh presents nothing",
              .timeLimit(.minutes(1)))
        func playingDropsStepsNotShown() throws {
            let paused = try PausedRenderer()
            for _ in 0..<3 { paused.renderer.requestStep() }
            #expect(paused.refresh(at: [100]).map(\.ptsMs) == [0])
            paused.renderer.setRunning(true, followsAudio: false, reportsLoops: false)
            paused.renderer.setRunning(false, followsAudio: false, reportsLoops: false)
            #expect(paused.refresh(at: [100.04]).map(\.ptsMs) == [nil])
            paused.close()
        }
    }
}
