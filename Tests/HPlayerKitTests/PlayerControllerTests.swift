import HPlayerTestSupport
import Testing
@testable import HPlayerKit

/// A player that only records what it is asked and emits what the test tells it to.
final class FakePlayer: MediaPlayer, @unchecked Sendable {
    private let lock = ConditionLock()
    private var calls: [String] = []
    private var continuations: [AsyncStream<PlayerEvent>.Continuation] = []

    var recorded: [String] { lock.withLock { calls } }
    var playbackState: PlaybackState { .idle }
    var loadState: LoadState { .idle }
    var isLooping = false
    var volume = 100
    var isMuted = false
    var position = 0.0
    var duration: Double?
    var mediaInfo: MediaInfo? { info }
    var abLoop = ABLoop()
    var speed = 1.0
    var presentedMediaPts: Double? { nil }
    func shownSubtitle(atMediaPts pts: Double) -> ShownSubtitle? { nil }
    var subtitleTracks: [SubtitleTrack] = []
    var subtitleTrack: Int?
    var subtitlesVisible = true
    var subtitleDelay = 0.0
    var subtitleStyle = SubtitleStyle()
    func selectSubtitleTrack(_ number: Int?) throws(MediaError) {
        record("sid \(number.map(String.init) ?? "no")")
        subtitleTrack = number
    }
    var secondarySubtitleTrack: Int?
    func selectSecondarySubtitleTrack(_ number: Int?) throws(MediaError) {
        record("secondary-sid \(number.map(String.init) ?? "no")")
        secondarySubtitleTrack = number
    }
    func addSubtitleFile(_ path: String) throws(MediaError) { record("sub-file \(path)") }
    var playingStreams: Set<Int> { lock.withLock { playing } }
    private var playing: Set<Int> = []
    var info: MediaInfo?
    func selectAudioTrack(_ number: Int) throws(MediaError) {
        record("audio \(number)")
        let audio = info?.streams(of: .audio) ?? []
        lock.withLock { playing = [audio[number - 1].index] }
    }
    var status: PlayerStatus {
        PlayerStatus(playbackState: .idle, loadState: .idle, position: position, duration: duration, avDifference: 0,
                     bufferedDuration: 0, bufferingProgress: 100, droppedFrames: 0, loopCount: 0)
    }

    func events() -> AsyncStream<PlayerEvent> {
        let (stream, continuation) = AsyncStream<PlayerEvent>.makeStream()
        lock.withLock { continuations.append(continuation) }
        return stream
    }

    func emit(_ event: PlayerEvent) {
        for continuation in lock.withLock({ continuations }) { continuation.yield(event) }
    }

    private func record(_ call: String) { lock.withLock { calls.append(call) } }
    func prepare() { record("prepare") }
    func play() { record("play") }
    func pause() { record("pause") }
    func seek(to position: Double, mode: SeekMode?) { record("seek \(position) \(mode.map { "\($0)" } ?? "default")") }
    func seek(to start: StartPosition, mode: SeekMode?) { record("seek \(start) \(mode.map { "\($0)" } ?? "default")") }
    func stepFrame(forward: Bool) { record("step \(forward ? "forward" : "back")") }
    func close() { record("close") }
    var recordingPath: String? { nil }
    func startRecording(to path: String) throws(MediaError) { record("record \(path)") }
    func stopRecording() { record("stop recording") }
}

let preparedInfo = MediaInfo(url: "x", container: "test", containerLongName: "", duration: 10, startTime: 0, bitRate: nil, streams: [])

@Suite struct PlayerControllerTests {
    @Test func autoplaysOncePrepared() async {
        let player = FakePlayer()
        let controller = PlayerController(player: player)
        controller.load()
        #expect(player.recorded == ["prepare"])
        player.emit(.prepared(preparedInfo))
        #expect(await until { player.recorded == ["prepare", "play"] })
    }

    @Test("A seek before prepared goes to the player at once (which keeps the last for the opening); position says where it will start")
    func aSeekBeforePreparedGoesToThePlayer() async {
        let player = FakePlayer()
        let controller = PlayerController(player: player)
        controller.load()
        #expect(controller.position == 0)
        controller.seek(to: 3, mode: .exact)
        controller.seek(to: .fraction(0.5), mode: nil)
        controller.seek(to: 7, mode: nil)
        #expect(player.recorded == ["prepare", "seek seconds(3.0) exact", "seek fraction(0.5) default", "seek seconds(7.0) default"])
        #expect(controller.position == 7, "the position the last seek will start at")
        player.emit(.prepared(preparedInfo))
        #expect(await until { player.recorded.last == "play" })
        #expect(player.recorded.count == 5, "nothing seeks again once prepared: \(player.recorded)")
        player.position = 6.5
        #expect(controller.position == 6.5, "once prepared, the player's")
        controller.seek(to: 1, mode: .keyframe)
        #expect(player.recorded.last == "seek seconds(1.0) keyframe")
    }

    @Test func pausingTurnsAutoplayOffSoNothingResumesIt() async {
        let player = FakePlayer()
        let controller = PlayerController(player: player)
        controller.load()
        controller.pause()
        #expect(!controller.autoplay)
        player.emit(.prepared(preparedInfo))
        player.emit(.playbackStateChanged(.paused))
        #expect(await until { controller.preparedHandled == 1 })
        #expect(!player.recorded.contains("play"))
        controller.play()
        #expect(controller.autoplay)
        #expect(player.recorded.last == "play")
    }

    @Test func withoutAutoplayPreparedDoesNotPlay() async {
        let player = FakePlayer()
        let controller = PlayerController(player: player, autoplay: false)
        controller.load()
        controller.seek(to: 2, mode: nil)
        player.emit(.prepared(preparedInfo))
        #expect(await until { controller.preparedHandled == 1 })
        #expect(player.recorded == ["prepare", "seek seconds(2.0) default"])
    }

    @Test func commandsFromKeysAndClicks() async {
        let player = FakePlayer()
        player.duration = 100
        player.position = 10
        let controller = PlayerController(player: player)
        controller.load()
        player.emit(.prepared(preparedInfo))
        #expect(await until { player.recorded == ["prepare", "play"] })

        #expect(controller.perform(.togglePause) == "Paused")
        #expect(player.recorded.last == "pause")
        #expect(controller.perform(.togglePause) == "Playing")
        #expect(player.recorded.last == "play")

        #expect(controller.perform(.seek(by: 5)) == "Seek 00:00:15 / 00:01:40")
        #expect(player.recorded.last == "seek seconds(15.0) default")
        #expect(controller.perform(.seek(by: -60)) == "Seek 00:00:00 / 00:01:40")  // not before the start
        #expect(player.recorded.last == "seek seconds(0.0) default")
        #expect(controller.perform(.seek(by: 600)) == "Seek 00:01:40 / 00:01:40")  // nor past the end
        #expect(controller.perform(.seekToFraction(0.25)) == "Seek 00:00:25 / 00:01:40")
        #expect(player.recorded.last == "seek seconds(25.0) default")

        #expect(controller.perform(.toggleLoop) == "Loop on")
        #expect(player.isLooping)
        #expect(controller.perform(.toggleLoop) == "Loop off")

        #expect(controller.perform(.changeVolume(by: 2)) == "Volume 100%")  // capped
        #expect(controller.perform(.changeVolume(by: -2)) == "Volume 98%")
        #expect(controller.perform(.toggleMute) == "Mute")
        #expect(player.isMuted)
        #expect(controller.perform(.toggleMute) == "Volume 98%")
        _ = controller.perform(.toggleMute)
        #expect(controller.perform(.changeVolume(by: -2)) == "Volume 96%")
        #expect(!player.isMuted, "changing the volume unmutes, as in mpv")
    }

    @Test("l sets A, then B, then clears; . and , step a frame and keep it paused")
    func abLoopAndFrameStep() async {
        let player = FakePlayer()
        player.duration = 100
        let controller = PlayerController(player: player)
        controller.load()
        player.emit(.prepared(preparedInfo))
        #expect(await until { player.recorded == ["prepare", "play"] })
        player.position = 12
        #expect(controller.perform(.cycleABLoop) == "A-B loop start: 00:00:12")
        player.position = 65
        #expect(controller.perform(.cycleABLoop) == "A-B loop: 00:00:12 - 00:01:05")
        #expect(player.abLoop == ABLoop(a: 12, b: 65) && player.abLoop.isActive)
        #expect(controller.perform(.cycleABLoop) == "Clear A-B loop")
        #expect(player.abLoop == ABLoop())

        #expect(controller.perform(.stepFrame(forward: true)) == nil)
        #expect(controller.perform(.stepFrame(forward: false)) == nil)
        #expect(player.recorded.suffix(2) == ["step forward", "step back"])
        #expect(!controller.autoplay, "a step leaves playback paused")
        #expect(controller.perform(.togglePause) == "Playing")
    }

    @Test("[ ] { } and Backspace step the speed as mpv's keys do, within 0.25x to 4x")
    func speedKeys() {
        let player = FakePlayer()
        let controller = PlayerController(player: player)
        #expect(controller.perform(.scaleSpeed(by: 1.1)) == "Speed 1.10")
        #expect(controller.perform(.scaleSpeed(by: 1.1)) == "Speed 1.21")
        #expect(controller.perform(.scaleSpeed(by: 2)) == "Speed 2.42")
        #expect(controller.perform(.scaleSpeed(by: 2)) == "Speed 4.00", "the fastest")
        #expect(controller.perform(.resetSpeed) == "Speed 1.00")
        for _ in 0..<3 { controller.perform(.scaleSpeed(by: 0.5)) }
        #expect(player.speed == 0.25, "the slowest")
    }

    @Test("# plays the next soundtrack, after the last the first, and says which")
    func cycleAudioTrack() {
        let player = FakePlayer()
        let audio = { (index: Int, language: String?, title: String?) in
            StreamInfo(index: index, type: .audio, codec: "aac", language: language, title: title, isDefault: false, isAttachedPicture: false)
        }
        player.info = MediaInfo(url: "x", container: "test", containerLongName: "", duration: 10, startTime: 0, bitRate: nil, streams: [
            StreamInfo(index: 0, type: .video, codec: "h264", isDefault: true, isAttachedPicture: false),
            audio(1, "eng", nil), audio(2, "fra", "Commentaire"),
        ])
        let controller = PlayerController(player: player)
        #expect(controller.perform(.cycleAudioTrack) == "No audio", "nothing playing yet")
        try? player.selectAudioTrack(1)
        #expect(controller.perform(.cycleAudioTrack) == "Audio 2/2 [fra] 'Commentaire'")
        #expect(controller.perform(.cycleAudioTrack) == "Audio 1/2 [eng]")
        #expect(player.recorded.suffix(2) == ["audio 2", "audio 1"])
    }

    @Test("j and J go through the subtitle tracks that can be shown, but the secondary one, and then none; v hides and shows them")
    func subtitleKeys() {
        let player = FakePlayer()
        let controller = PlayerController(player: player)
        #expect(controller.perform(.cycleSubtitleTrack(forward: true)) == "No subtitles")
        let track = { (language: String?, title: String?, path: String?, unsupported: String?) in
            SubtitleTrack(description: SubtitleTrackDescription(streamIndex: path == nil ? 2 : nil, path: path, codec: "subrip",
                                                                language: language, title: title, isDefault: false),
                          unsupportedReason: unsupported)
        }
        player.subtitleTracks = [track("eng", "English", nil, nil), track(nil, nil, nil, "bitmap"), track(nil, nil, "/tmp/x/film.srt", nil)]
        #expect(controller.perform(.cycleSubtitleTrack(forward: true)) == "Subtitles 1/3 [eng] 'English'")
        #expect(controller.perform(.cycleSubtitleTrack(forward: true)) == "Subtitles 3/3 'film.srt'", "the bitmap track is passed over")
        #expect(controller.perform(.cycleSubtitleTrack(forward: true)) == "Subtitles off")
        #expect(controller.perform(.cycleSubtitleTrack(forward: false)) == "Subtitles 3/3 'film.srt'")
        #expect(player.recorded == ["sid 1", "sid 3", "sid no", "sid 3"])
        // The secondary track is passed over too.
        player.secondarySubtitleTrack = 1
        #expect(controller.perform(.cycleSubtitleTrack(forward: true)) == "Subtitles off")
        #expect(controller.perform(.cycleSubtitleTrack(forward: true)) == "Subtitles 3/3 'film.srt'")
        #expect(controller.perform(.toggleSubtitles) == "Subtitles hidden")
        #expect(!player.subtitlesVisible)
        #expect(controller.perform(.toggleSubtitles) == "Subtitles visible")
        #expect(controller.perform(.changeSubtitleDelay(by: -0.1)) == "Sub delay: -100 ms")
        #expect(controller.perform(.changeSubtitleDelay(by: 0.1)) == "Sub delay: 0 ms")
        for _ in 0..<3 { _ = controller.perform(.changeSubtitleDelay(by: 0.1)) }
        #expect(player.subtitleDelay == 0.3, "steps of 0.1 s add up to whole milliseconds")
        #expect(controller.perform(.changeSubtitleScale(by: 0.1)) == "Sub scale: 1.1")
        #expect(controller.perform(.changeSubtitleScale(by: -0.1)) == "Sub scale: 1.0")
        #expect(player.subtitleStyle.scale == 1)
        #expect(controller.perform(.changeSubtitlePosition(by: -1)) == "Sub position: 99/100")
        for _ in 0..<60 { _ = controller.perform(.changeSubtitlePosition(by: 1)) }
        #expect(player.subtitleStyle.position == 150, "kept within mpv's range")
    }

    @Test func aClickOnTheBarOfMediaWithoutDurationDoesNothing() async {
        let player = FakePlayer()
        let controller = PlayerController(player: player)
        controller.load()
        player.emit(.prepared(preparedInfo))
        #expect(await until { player.recorded == ["prepare", "play"] })
        #expect(controller.perform(.seekToFraction(0.5)) == nil)
        #expect(player.recorded == ["prepare", "play"])
    }
}
