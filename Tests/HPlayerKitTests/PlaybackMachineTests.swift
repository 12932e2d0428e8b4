import Testing
@testable import HPlayerKit

/// The playback machine by table: each row plays a sequence of events from a fresh machine and
/// names the effects of its last event and where the machine then stands.
@Suite struct PlaybackMachineTests {
    typealias Event = PlaybackMachine.Event
    typealias Effect = PlaybackMachine.Effect

    static let info = MediaInfo(url: "clip.mkv", container: "matroska", containerLongName: "Matroska", duration: 10,
                                startTime: 1, bitRate: nil, streams: [])
    static let noDuration = MediaInfo(url: "live.m3u8", container: "hls", containerLongName: "HLS", duration: nil, startTime: 0, bitRate: nil, streams: [])
    static let loading = BufferingReport(bufferedDuration: 0.2, isPlayable: false, isStarved: false, progress: 40)
    static let playable = BufferingReport(bufferedDuration: 2, isPlayable: true, isStarved: false, progress: 100)
    static let starved = BufferingReport(bufferedDuration: 0, isPlayable: false, isStarved: true, progress: 10)
    static let atEnd = BufferingReport(bufferedDuration: 1, isPlayable: true, isStarved: false, progress: 100, isInputFinished: true)

    /// Opened with sound and picture, the first evaluation playable.
    static let openedAV: [Event] = [.prepare, .opened(info, hasAudio: true, hasVideo: true), .evaluated(playable, loadState: .playable, serial: 0)]
    static let openedAudio: [Event] = [.prepare, .opened(info, hasAudio: true, hasVideo: false), .evaluated(playable, loadState: .playable, serial: 0)]
    /// Opened, played, and its first picture shown.
    static let playingAV: [Event] = openedAV + [.play(clock: nil), .rendered(.firstFramePresented, serial: 0, firstPicture: 1)]

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var events: [Event]
        var effects: [Effect]
        var playback: PlaybackState
        var load: LoadState
        var audio: PlaybackMachine.StreamStatus?
        var video: PlaybackMachine.StreamStatus?
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "prepare opens the source and starts loading", events: [.prepare],
            effects: [.emit(.loadStateChanged(.loading)), .openSource], playback: .idle, load: .loading),
        Row(name: "a second prepare does nothing", events: [.prepare, .prepare],
            effects: [], playback: .idle, load: .loading),
        Row(name: "opening sets the gain and B, begins serial 0 and tells prepared",
            events: [.prepare, .opened(info, hasAudio: true, hasVideo: true)],
            effects: [.setGain(1), .setLoopEnd(nil, on: .video), .beginSerial(0, audioReportsLoops: false), .emit(.prepared(info))],
            playback: .idle, load: .loading, audio: .filling, video: .filling),
        Row(name: "a seek asked before the opening is kept, the last one winning, and made as it opens, in the step that tells prepared",
            events: [.seek(to: 3, mode: .exact), .prepare, .startAt(.beforeEnd(1), mode: nil), .opened(info, hasAudio: true, hasVideo: true)],
            effects: [.setGain(1), .setLoopEnd(nil, on: .video), .beginSerial(0, audioReportsLoops: false), .emit(.prepared(info)),
                      .emit(.playbackStateChanged(.seeking)), .seekSource(to: 9, mode: .keyframe, serial: 1), .beginSerial(1, audioReportsLoops: false)],
            playback: .seeking, load: .loading, audio: .syncing, video: .syncing),
        Row(name: "so the opening's first buffering report, of serial 0, previews nothing from before the start",
            events: [.prepare, .startAt(.fraction(0.5), mode: .exact), .opened(info, hasAudio: true, hasVideo: true),
                     .evaluated(playable, loadState: .playable, serial: 0)],
            effects: [], playback: .seeking, load: .loading, audio: .syncing, video: .syncing),
        Row(name: "a start at a fraction of media without a duration is dropped as it opens",
            events: [.prepare, .startAt(.fraction(0.5), mode: .exact), .opened(noDuration, hasAudio: true, hasVideo: true)],
            effects: [.setGain(1), .setLoopEnd(nil, on: .video), .beginSerial(0, audioReportsLoops: false), .emit(.prepared(noDuration))],
            playback: .idle, load: .loading, audio: .filling, video: .filling),
        Row(name: "loading reports its progress once per change",
            events: [.prepare, .opened(info, hasAudio: true, hasVideo: true), .evaluated(loading, loadState: .loading, serial: 0)],
            effects: [.emit(.bufferingProgress(percent: 40, buffered: 0.2))], playback: .idle, load: .loading, audio: .filling, video: .filling),
        Row(name: "playable and not asked to play: the first picture is previewed",
            events: openedAV,
            effects: [.emit(.loadStateChanged(.playable)), .showPreview], playback: .idle, load: .playable, audio: .ready, video: .ready),
        Row(name: "play when playable starts rendering and the timeline of serial 0",
            events: openedAV + [.play(clock: nil)],
            effects: [.emit(.playbackStateChanged(.playing)), .startRendering(timelineOf: 0, from: .earliestFrame, followsAudio: true)],
            playback: .playing, load: .playable, audio: .playing, video: .playing),
        Row(name: "play before playable waits for the buffer",
            events: [.prepare, .play(clock: nil), .opened(info, hasAudio: true, hasVideo: true), .evaluated(playable, loadState: .playable, serial: 0)],
            effects: [.emit(.loadStateChanged(.playable)), .startRendering(timelineOf: 0, from: .earliestFrame, followsAudio: true)],
            playback: .playing, load: .playable, audio: .playing, video: .playing),
        Row(name: "the first picture tells started",
            events: playingAV, effects: [.emit(.started(position: 0))], playback: .playing, load: .playable, audio: .playing, video: .playing),
        Row(name: "sound alone tells started as rendering starts",
            events: openedAudio + [.play(clock: nil)],
            effects: [.emit(.playbackStateChanged(.playing)), .startRendering(timelineOf: 0, from: .earliestFrame, followsAudio: true),
                      .emit(.started(position: 0))],
            playback: .playing, load: .playable, audio: .playing),
        Row(name: "pause stops rendering; play resumes the clock, not a new timeline",
            events: playingAV + [.pause, .play(clock: 3)],
            effects: [.emit(.playbackStateChanged(.playing)), .startRendering(timelineOf: nil, from: .earliestFrame, followsAudio: true)],
            playback: .playing, load: .playable, audio: .playing, video: .playing),
        Row(name: "pause", events: playingAV + [.pause],
            effects: [.emit(.playbackStateChanged(.paused)), .stopRendering(followsAudio: true)],
            playback: .paused, load: .playable, audio: .ready, video: .ready),
        Row(name: "a seek stops rendering first, then seeks under a new serial",
            events: playingAV + [.seek(to: 4, mode: nil)],
            effects: [.emit(.loadStateChanged(.loading)), .emit(.playbackStateChanged(.seeking)), .stopRendering(followsAudio: true),
                      .seekSource(to: 4, mode: .keyframe, serial: 1), .beginSerial(1, audioReportsLoops: false)],
            playback: .seeking, load: .loading, audio: .syncing, video: .syncing),
        Row(name: "a seek past the end goes to the end",
            events: playingAV + [.seek(to: 99, mode: .exact)],
            effects: [.emit(.loadStateChanged(.loading)), .emit(.playbackStateChanged(.seeking)), .stopRendering(followsAudio: true),
                      .seekSource(to: 10, mode: .exact, serial: 1), .beginSerial(1, audioReportsLoops: false)],
            playback: .seeking, load: .loading, audio: .syncing, video: .syncing),
        Row(name: "a seek past the end of a looping file goes to the start",
            events: [.setLooping(true)] + playingAV + [.seek(to: 99, mode: .exact)],
            effects: [.emit(.loadStateChanged(.loading)), .emit(.playbackStateChanged(.seeking)), .stopRendering(followsAudio: true),
                      .seekSource(to: 0, mode: .exact, serial: 1), .beginSerial(1, audioReportsLoops: false)],
            playback: .seeking, load: .loading, audio: .syncing, video: .syncing),
        Row(name: "a seek's playable buffer starts the timeline at its picture",
            events: playingAV + [.seek(to: 4, mode: nil), .evaluated(playable, loadState: .playable, serial: 1)],
            effects: [.emit(.loadStateChanged(.playable)), .startRendering(timelineOf: 1, from: .firstPicture, followsAudio: true)],
            playback: .seeking, load: .playable, audio: .syncing, video: .syncing),
        Row(name: "a seek lands at its first picture",
            events: playingAV + [.seek(to: 4, mode: nil), .evaluated(playable, loadState: .playable, serial: 1),
                                 .rendered(.firstFramePresented, serial: 1, firstPicture: 4.96)],
            effects: [.emit(.seekDone(position: 3.96)), .emit(.playbackStateChanged(.playing))],
            playback: .playing, load: .playable, audio: .playing, video: .playing),
        Row(name: "the old serial's reports and notes are ignored",
            events: playingAV + [.seek(to: 4, mode: nil), .evaluated(playable, loadState: .playable, serial: 0),
                                 .rendered(.firstFramePresented, serial: 0, firstPicture: 1), .rendered(.videoEnded, serial: 0, firstPicture: 1)],
            effects: [], playback: .seeking, load: .loading, audio: .syncing, video: .syncing),
        Row(name: "a seek while paused previews its picture and lands paused",
            events: playingAV + [.pause, .seek(to: 4, mode: nil), .evaluated(playable, loadState: .playable, serial: 1)],
            effects: [.emit(.loadStateChanged(.playable)), .showPreview],
            playback: .seeking, load: .playable, audio: .syncing, video: .syncing),
        Row(name: "a paused seek's preview lands it paused",
            events: playingAV + [.pause, .seek(to: 4, mode: nil), .evaluated(playable, loadState: .playable, serial: 1),
                                 .rendered(.firstFramePresented, serial: 1, firstPicture: 5)],
            effects: [.emit(.seekDone(position: 4)), .emit(.playbackStateChanged(.paused))],
            playback: .paused, load: .playable, audio: .ready, video: .ready),
        Row(name: "a seek with sound alone lands when playable, at its target",
            events: openedAudio + [.play(clock: nil), .seek(to: 2, mode: nil), .evaluated(playable, loadState: .playable, serial: 1)],
            effects: [.emit(.loadStateChanged(.playable)), .emit(.seekDone(position: 2)), .emit(.playbackStateChanged(.playing)),
                      .startRendering(timelineOf: 1, from: .firstPicture, followsAudio: true)],
            playback: .playing, load: .playable, audio: .playing),
        Row(name: "a forward step pauses and shows the next frame",
            events: playingAV + [.step(forward: true, shown: 3)],
            effects: [.emit(.playbackStateChanged(.paused)), .stopRendering(followsAudio: true), .showStep],
            playback: .paused, load: .playable, audio: .ready, video: .ready),
        Row(name: "play after a step seeks exactly to the clock, so sound and picture start together",
            events: playingAV + [.step(forward: true, shown: 3), .play(clock: 2.5)],
            effects: [.emit(.loadStateChanged(.loading)), .emit(.playbackStateChanged(.seeking)),
                      .seekSource(to: 2.5, mode: .exact, serial: 1), .beginSerial(1, audioReportsLoops: false)],
            playback: .seeking, load: .loading, audio: .syncing, video: .syncing),
        Row(name: "a back step seeks to the frame before the one shown",
            events: playingAV + [.step(forward: false, shown: 3)],
            effects: [.emit(.playbackStateChanged(.paused)), .stopRendering(followsAudio: true), .emit(.loadStateChanged(.loading)),
                      .emit(.playbackStateChanged(.seeking)), .seekSource(to: 2, mode: .frameBefore, serial: 1),
                      .beginSerial(1, audioReportsLoops: false)],
            playback: .seeking, load: .loading, audio: .syncing, video: .syncing),
        Row(name: "no step without a picture", events: openedAudio + [.play(clock: nil), .step(forward: true, shown: nil)],
            effects: [], playback: .playing, load: .playable, audio: .playing),
        Row(name: "a loop pass is counted", events: playingAV + [.rendered(.loopPassed, serial: 0, firstPicture: 1)],
            effects: [.emit(.loopDone(count: 1))], playback: .playing, load: .playable, audio: .playing, video: .playing),
        Row(name: "A-B: B reached counts a pass and seeks exactly to A",
            events: [.setABLoop(ABLoop(a: 2, b: 3))] + playingAV + [.rendered(.loopEndReached, serial: 0, firstPicture: 1)],
            effects: [.emit(.loopDone(count: 1)), .emit(.loadStateChanged(.loading)), .emit(.playbackStateChanged(.seeking)),
                      .stopRendering(followsAudio: true), .seekSource(to: 2, mode: .exact, serial: 1), .beginSerial(1, audioReportsLoops: false)],
            playback: .seeking, load: .loading, audio: .syncing, video: .syncing),
        Row(name: "A-B: B goes to the picture, in media pts", events: openedAV + [.setABLoop(ABLoop(a: 2, b: 3))],
            effects: [.setLoopEnd(4, on: .video)], playback: .idle, load: .playable, audio: .ready, video: .ready),
        Row(name: "A-B: with sound alone, B goes to the sound", events: openedAudio + [.setABLoop(ABLoop(a: 2, b: 3))],
            effects: [.setLoopEnd(4, on: .audio)], playback: .idle, load: .playable, audio: .ready),
        Row(name: "A-B: a B reached after the loop was cleared does nothing",
            events: [.setABLoop(ABLoop(a: 2, b: 3))] + playingAV + [.setABLoop(ABLoop()), .rendered(.loopEndReached, serial: 0, firstPicture: 1)],
            effects: [], playback: .playing, load: .playable, audio: .playing, video: .playing),
        Row(name: "a soundtrack switch refreshes exactly where the clock stands",
            events: playingAV + [.selectAudio(stream: 2, clock: 5.5)],
            effects: [.switchAudio(stream: 2), .emit(.loadStateChanged(.loading)), .emit(.playbackStateChanged(.seeking)),
                      .stopRendering(followsAudio: true), .seekSource(to: 5.5, mode: .exact, serial: 1), .beginSerial(1, audioReportsLoops: false)],
            playback: .seeking, load: .loading, audio: .syncing, video: .syncing),
        Row(name: "the sound ends first: the picture paces itself", events: playingAV + [.rendered(.audioEnded, serial: 0, firstPicture: 1)],
            effects: [.stopFollowingAudio], playback: .playing, load: .playable, audio: .eof, video: .playing),
        Row(name: "the input read to its end: the streams drain", events: playingAV + [.evaluated(atEnd, loadState: .playable, serial: 0)],
            effects: [], playback: .playing, load: .playable, audio: .draining, video: .draining),
        Row(name: "both ended: finished",
            events: playingAV + [.rendered(.audioEnded, serial: 0, firstPicture: 1), .rendered(.videoEnded, serial: 0, firstPicture: 1)],
            effects: [.emit(.playbackStateChanged(.finished)), .stopRendering(followsAudio: false), .emitEnd],
            playback: .finished, load: .playable, audio: .eof, video: .eof),
        Row(name: "the picture alone ending does not finish while sound plays",
            events: playingAV + [.rendered(.videoEnded, serial: 0, firstPicture: 1)],
            effects: [], playback: .playing, load: .playable, audio: .playing, video: .eof),
        Row(name: "an end reached while a seek is landing lands it first",
            events: playingAV + [.seek(to: 9.9, mode: nil), .evaluated(atEnd, loadState: .playable, serial: 1),
                                 .rendered(.audioEnded, serial: 1, firstPicture: nil), .rendered(.videoEnded, serial: 1, firstPicture: nil)],
            effects: [.emit(.seekDone(position: 9.9)), .emit(.playbackStateChanged(.playing)), .emit(.playbackStateChanged(.finished)),
                      .stopRendering(followsAudio: false), .emitEnd],
            playback: .finished, load: .playable, audio: .eof, video: .eof),
        Row(name: "play when finished plays again from the start",
            events: playingAV + [.rendered(.audioEnded, serial: 0, firstPicture: 1), .rendered(.videoEnded, serial: 0, firstPicture: 1),
                                 .play(clock: nil)],
            effects: [.emit(.loadStateChanged(.loading)), .emit(.playbackStateChanged(.seeking)),
                      .seekSource(to: 0, mode: .keyframe, serial: 1), .beginSerial(1, audioReportsLoops: false)],
            playback: .seeking, load: .loading, audio: .syncing, video: .syncing),
        Row(name: "a failed open finishes with its error",
            events: [.prepare, .failed(MediaError(input: "x", reason: "gone"))],
            effects: [.emit(.loadStateChanged(.idle)), .emit(.playbackStateChanged(.finished)), .emit(.finished(MediaError(input: "x", reason: "gone")))],
            playback: .finished, load: .idle),
        // The source's read thread has ended: a seek there would never land.
        Row(name: "play after a failed open stays finished, with no seek",
            events: [.prepare, .failed(MediaError(input: "x", reason: "gone")), .play(clock: nil)],
            effects: [], playback: .finished, load: .idle),
        Row(name: "a seek after a failed open does nothing",
            events: [.prepare, .failed(MediaError(input: "x", reason: "gone")), .seek(to: 4, mode: nil)],
            effects: [], playback: .finished, load: .idle),
        Row(name: "a new speed with sound goes to the tempo stage only", events: openedAV + [.setSpeed(2)],
            effects: [.setTempo(2)], playback: .idle, load: .playable, audio: .ready, video: .ready),
        Row(name: "a new speed without sound moves the clock's rate", events: playingAV + [.rendered(.audioEnded, serial: 0, firstPicture: 1), .setSpeed(9)],
            effects: [.setTempo(4), .setClockRate(4)], playback: .playing, load: .playable, audio: .eof, video: .playing),
        Row(name: "volume is cubed, mute silences", events: [.setVolume(50), .setMuted(true), .setMuted(false)],
            effects: [.setGain(0.125)], playback: .idle, load: .idle),
        Row(name: "running dry while playing: buffering starts and rendering stops",
            events: playingAV + [.evaluated(starved, loadState: .loading, serial: 0)],
            effects: [.emit(.bufferingStarted), .emit(.loadStateChanged(.loading)), .emit(.bufferingProgress(percent: 10, buffered: 0)),
                      .stopRendering(followsAudio: true)],
            playback: .playing, load: .loading, audio: .filling, video: .filling),
        Row(name: "playable again after running dry: buffering ends and the clock resumes",
            events: playingAV + [.evaluated(starved, loadState: .loading, serial: 0), .evaluated(playable, loadState: .playable, serial: 0)],
            effects: [.emit(.loadStateChanged(.playable)), .emit(.bufferingEnded),
                      .startRendering(timelineOf: nil, from: .earliestFrame, followsAudio: true)],
            playback: .playing, load: .playable, audio: .playing, video: .playing),
        Row(name: "a seek while buffering ends the buffering; its own loading is not buffering",
            events: playingAV + [.evaluated(starved, loadState: .loading, serial: 0), .seek(to: 4, mode: nil)],
            effects: [.emit(.bufferingEnded), .emit(.playbackStateChanged(.seeking)),
                      .seekSource(to: 4, mode: .keyframe, serial: 1), .beginSerial(1, audioReportsLoops: false)],
            playback: .seeking, load: .loading, audio: .syncing, video: .syncing),
        Row(name: "running dry while paused is not buffering",
            events: playingAV + [.pause, .evaluated(starved, loadState: .loading, serial: 0)],
            effects: [.emit(.loadStateChanged(.loading)), .emit(.bufferingProgress(percent: 10, buffered: 0))],
            playback: .paused, load: .loading, audio: .filling, video: .filling),
        Row(name: "closing while buffering ends the buffering",
            events: playingAV + [.evaluated(starved, loadState: .loading, serial: 0), .close],
            effects: [.emit(.bufferingEnded), .emit(.playbackStateChanged(.stopped))],
            playback: .stopped, load: .loading, audio: .filling, video: .filling),
        Row(name: "close stops rendering and says stopped", events: playingAV + [.close],
            effects: [.stopRendering(followsAudio: true), .emit(.playbackStateChanged(.stopped))],
            playback: .stopped, load: .playable, audio: .ready, video: .ready),
        Row(name: "nothing is decided after close", events: playingAV + [.close, .seek(to: 1, mode: nil), .play(clock: nil)],
            effects: [], playback: .stopped, load: .playable, audio: .ready, video: .ready),
    ]

    @Test(arguments: rows)
    func sequence(_ row: Row) {
        var machine = PlaybackMachine()
        var effects: [Effect] = []
        for event in row.events { effects = machine.handle(event) }
        #expect(effects == row.effects)
        #expect(machine.playback == row.playback)
        #expect(machine.load == row.load)
        #expect(machine.audio == row.audio)
        #expect(machine.video == row.video)
    }

    @Test("The gain as the media opens is the volume's, times the ReplayGain the file's tags ask for; a volume change keeps that factor")
    func replayGainAtTheOpening() {
        var machine = PlaybackMachine(configuration: .init(replayGain: ReplayGain(mode: .album)))
        var info = Self.info
        info.tags = [MetadataTag(key: "REPLAYGAIN_TRACK_GAIN", value: "-6.0206 dB")]
        _ = machine.handle(.prepare)
        let effects = machine.handle(.opened(info, hasAudio: true, hasVideo: true))
        guard case .setGain(let gain)? = effects.first else { Issue.record("no gain: \(effects)"); return }
        #expect(abs(gain - 0.5) < 1e-4, "the album's gain, from the track's")
        #expect(machine.handle(.setVolume(50)).contains { if case .setGain(let g) = $0 { abs(g - 0.125 * 0.5) < 1e-4 } else { false } })
    }

    /// Live, far behind: a jump to the newest key frame, as a seek that tells `liveJump` when it
    /// lands, not `seekDone`; at 1x meanwhile, and the catch-up decided again after.
    @Test func liveJumpFarBehind() {
        var machine = PlaybackMachine(configuration: .init(liveLatencyTarget: 0.1))
        for event in Self.playingAV { _ = machine.handle(event) }
        #expect(machine.handle(.liveEdge(behind: 1.5, queued: 1.5, readEnd: 9, keyFrame: 8.5)) == [.setTempo(1.1), .emit(.liveCatchUp(speed: 1.1))])
        #expect(machine.handle(.liveEdge(behind: 2, queued: 1.7, readEnd: 9.5, keyFrame: 8)).isEmpty, "no jump to a key frame 1.5 s back")
        let jump = machine.handle(.liveEdge(behind: 2, queued: 1.7, readEnd: 9.5, keyFrame: 9))
        #expect(jump.contains(.seekSource(to: 8.4, mode: .liveEdge, serial: 1)), "\(jump)")
        #expect(jump.contains(.emit(.liveCatchUp(speed: 1))) && machine.playback == .seeking)
        #expect(machine.handle(.liveEdge(behind: 2, queued: 1.7, readEnd: 9.6, keyFrame: 9)).isEmpty, "no second jump while the first lands")
        _ = machine.handle(.evaluated(Self.playable, loadState: .playable, serial: 1))
        let landed = machine.handle(.rendered(.firstFramePresented, serial: 1, firstPicture: 9))
        #expect(landed.contains(.emit(.liveJump(position: 8))) && !landed.contains { if case .emit(.seekDone) = $0 { true } else { false } })
        #expect(machine.playback == .playing)
        // A seek asked for afterwards is told as one.
        _ = machine.handle(.seek(to: 2, mode: nil))
        _ = machine.handle(.evaluated(Self.playable, loadState: .playable, serial: 2))
        #expect(machine.handle(.rendered(.firstFramePresented, serial: 2, firstPicture: 3)).contains(.emit(.seekDone(position: 2))))
    }

    /// Live, the timeline starts at the first picture, shown at once, both at the opening and
    /// after a jump; a file's opening starts at the earliest frame.
    @Test func liveTimelineStartsAtFirstPictureNow() {
        var live = PlaybackMachine(configuration: .init(liveLatencyTarget: 0.1))
        let opened = Self.openedAV.dropLast().flatMap { live.handle($0) } + live.handle(.play(clock: nil))
        #expect(!opened.contains { if case .startRendering = $0 { true } else { false } })
        #expect(live.handle(.evaluated(Self.playable, loadState: .playable, serial: 0))
            .contains(.startRendering(timelineOf: 0, from: .firstPictureNow, followsAudio: true)))
        _ = live.handle(.rendered(.firstFramePresented, serial: 0, firstPicture: 1))
        _ = live.handle(.liveEdge(behind: 2, queued: 1.7, readEnd: 9.5, keyFrame: 9))
        #expect(live.handle(.evaluated(Self.playable, loadState: .playable, serial: 1))
            .contains(.startRendering(timelineOf: 1, from: .firstPictureNow, followsAudio: true)))
        var file = PlaybackMachine()
        let played = Self.openedAV.flatMap { file.handle($0) } + file.handle(.play(clock: nil))
        #expect(played.contains(.startRendering(timelineOf: 0, from: .earliestFrame, followsAudio: true)))
    }

    /// A live HLS playlist is known live once open: its hold-back is the latency target. Past it
    /// playback catches up, but far past it never jumps (the newest key frame queued is a segment
    /// from the edge, well inside the target); `--no-live` plays it as a file.
    @Test func liveHLSFollowsItsHoldBack() {
        var info = Self.info
        info.duration = nil
        info.liveHoldBack = 3
        let opened: [Event] = [.prepare, .opened(info, hasAudio: true, hasVideo: true), .evaluated(Self.playable, loadState: .playable, serial: 0),
                               .play(clock: nil), .rendered(.firstFramePresented, serial: 0, firstPicture: 1)]
        var hls = PlaybackMachine()
        #expect(hls.live == nil, "not known live before it opens")
        for event in opened { _ = hls.handle(event) }
        #expect(hls.live == PlaybackMachine.LiveControl(latencyTarget: 3, isSegmented: true, tolerance: 0.5))
        #expect(hls.handle(.liveEdge(behind: 3, queued: 3, readEnd: 9, keyFrame: 8)).isEmpty, "at the target: 1x")
        #expect(hls.handle(.liveEdge(behind: 3.4, queued: 3.4, readEnd: 9.4, keyFrame: 8)).isEmpty, "within half a segment: 1x")
        #expect(hls.handle(.liveEdge(behind: 3.7, queued: 3.7, readEnd: 9.7, keyFrame: 8)) == [.setTempo(1.1), .emit(.liveCatchUp(speed: 1.1))])
        #expect(hls.handle(.liveEdge(behind: 3.2, queued: 3.2, readEnd: 9.7, keyFrame: 8)) == [.setTempo(1.05), .emit(.liveCatchUp(speed: 1.05))])
        let farBehind = hls.handle(.liveEdge(behind: 9, queued: 9, readEnd: 15, keyFrame: 14))
        #expect(farBehind == [.setTempo(1.1), .emit(.liveCatchUp(speed: 1.1))], "no jump: \(farBehind)")
        var file = PlaybackMachine(configuration: .init(followsLiveHLS: false))
        for event in opened { _ = file.handle(event) }
        #expect(file.live == nil)
        #expect(file.handle(.liveEdge(behind: 9, queued: 9, readEnd: 15, keyFrame: 14)).isEmpty)
    }

    /// Untimed playback renders once open, without waiting for the buffer.
    @Test func untimedRendersOnceOpen() {
        var machine = PlaybackMachine(configuration: .init(isUntimed: true))
        _ = machine.handle(.prepare)
        _ = machine.handle(.play(clock: nil))
        _ = machine.handle(.opened(Self.info, hasAudio: false, hasVideo: true))
        let effects = machine.handle(.evaluated(Self.loading, loadState: .loading, serial: 0))
        #expect(effects.contains(.startRendering(timelineOf: 0, from: .earliestFrame, followsAudio: false)))
    }
}
