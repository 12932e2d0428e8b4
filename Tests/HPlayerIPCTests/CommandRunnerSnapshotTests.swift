@testable import HPlayerIPC
@testable import HPlayerKit
import Testing

/// A player whose state moves on between any two reads of it, as when another thread changes
/// it meanwhile: each read is a new moment, and every value it gives is that moment's.
private final class MovingPlayer: MediaPlayer, @unchecked Sendable {
    private let lock = ConditionLock()
    private var moments = 0

    /// The next moment: what one acquisition of the real player's lock sees.
    private func moment() -> Int { lock.withLock { moments += 1; return moments } }

    private static func info(_ moment: Int) -> MediaInfo {
        let audio = [0, 1].map {
            StreamInfo(index: $0, type: .audio, codec: "aac", isDefault: false, isAttachedPicture: false)
        }
        return MediaInfo(url: "moment-\(moment)", container: "test", containerLongName: "", duration: Double(100 + moment),
                         startTime: 0, bitRate: nil, streams: audio)
    }

    var status: PlayerStatus {
        let moment = moment()
        var status = PlayerStatus(playbackState: .playing, loadState: .playable, position: Double(moment), duration: Double(100 + moment),
                                  avDifference: 0, bufferedDuration: 0, bufferingProgress: 100, droppedFrames: 0, loopCount: 0)
        status.volume = moment
        status.isMuted = moment % 2 == 1
        status.isLooping = moment % 2 == 1
        status.abLoop = ABLoop(a: Double(moment), b: nil)
        status.speed = 1 + Double(moment) / 100
        status.mediaInfo = Self.info(moment)
        status.playingStreams = [moment % 2]
        return status
    }

    var volume: Int {
        get { moment() }
        set {}
    }
    var isMuted: Bool {
        get { moment() % 2 == 1 }
        set {}
    }
    var isLooping: Bool {
        get { moment() % 2 == 1 }
        set {}
    }
    var abLoop: ABLoop {
        get { ABLoop(a: Double(moment()), b: nil) }
        set {}
    }
    var speed: Double {
        get { 1 + Double(moment()) / 100 }
        set {}
    }
    var mediaInfo: MediaInfo? { Self.info(moment()) }
    var playingStreams: Set<Int> { [moment() % 2] }

    var playbackState: PlaybackState { .playing }
    var loadState: LoadState { .playable }
    var subtitleTracks: [SubtitleTrack] { [] }
    var subtitleTrack: Int? { nil }
    var subtitlesVisible = true
    var subtitleDelay = 0.0
    var subtitleStyle = SubtitleStyle()
    var presentedMediaPts: Double? { nil }
    func shownSubtitle(atMediaPts pts: Double) -> ShownSubtitle? { nil }
    var recordingPath: String? { nil }
    func selectAudioTrack(_ number: Int) throws(MediaError) {}
    func selectSubtitleTrack(_ number: Int?) throws(MediaError) {}
    var secondarySubtitleTrack: Int? { nil }
    func selectSecondarySubtitleTrack(_ number: Int?) throws(MediaError) {}
    func addSubtitleFile(_ path: String) throws(MediaError) {}
    func events() -> AsyncStream<PlayerEvent> { AsyncStream { $0.finish() } }
    func prepare() {}
    func play() {}
    func pause() {}
    func seek(to position: Double, mode: SeekMode?) {}
    func seek(to start: StartPosition, mode: SeekMode?) {}
    func stepFrame(forward: Bool) {}
    func close() {}
    func startRecording(to path: String) throws(MediaError) {}
    func stopRecording() {}
}

private final class NoFrontEnd: CommandFrontEnd {
    func load(_ url: String, mode: IPCCommand.LoadMode) -> Int { 0 }
    func loadList(_ path: String, mode: IPCCommand.LoadMode) -> (firstID: Int, count: Int)? { nil }
    func apply(_ request: PlaylistRequest) -> Bool { false }
    var view: PlaylistView { PlaylistView() }
    func quit(code: Int32, savingPosition: Bool) {}
    func screenshot(withSubtitles: Bool) -> Bool { false }
    func toggleFullscreen() -> Bool { false }
}

@Suite struct CommandRunnerSnapshotTests {
    @Test("A property snapshot reads the player once: position, duration, volume, mute, loop, A-B, speed, path and the audio track playing are all of one moment")
    func snapshotIsOfOneMoment() throws {
        let runner = CommandRunner(frontEnd: NoFrontEnd())
        runner.attach(PlayerController(player: MovingPlayer()))
        let snapshot = try #require(runner.snapshot())
        let moment = snapshot.position
        let read: [Double] = [snapshot.duration ?? 0, Double(snapshot.volume), snapshot.isMuted ? 1 : 0, snapshot.isLooping ? 1 : 0,
                    snapshot.abLoop.a ?? 0, snapshot.speed, Double(String(snapshot.path.dropFirst("moment-".count))) ?? 0,
                    Double(snapshot.audioTrack ?? 0)]
        let expected: [Double] = [100 + moment, moment, moment.truncatingRemainder(dividingBy: 2), moment.truncatingRemainder(dividingBy: 2),
                        moment, 1 + moment / 100, moment, moment.truncatingRemainder(dividingBy: 2) + 1]
        #expect(read == expected, "moment \(moment)")
    }
}
