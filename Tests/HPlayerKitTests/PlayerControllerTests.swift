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
    var mediaInfo: MediaInfo? { nil }
    var status: PlayerStatus {
        PlayerStatus(playbackState: .idle, loadState: .idle, position: 0, duration: nil, avDifference: 0,
                     bufferedDuration: 0, droppedFrames: 0, loopCount: 0)
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
    func close() { record("close") }
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

    @Test func aSeekBeforePreparedIsKeptAndTheLastWins() async {
        let player = FakePlayer()
        let controller = PlayerController(player: player)
        controller.load()
        controller.seek(to: 3, mode: .exact)
        controller.seek(to: 7, mode: nil)
        #expect(player.recorded == ["prepare"])
        player.emit(.prepared(preparedInfo))
        #expect(await until { player.recorded == ["prepare", "seek 7.0 default", "play"] })
        controller.seek(to: 1, mode: .keyframe)
        #expect(player.recorded.last == "seek 1.0 keyframe")
    }

    @Test func pausingTurnsAutoplayOffSoNothingResumesIt() async {
        let player = FakePlayer()
        let controller = PlayerController(player: player)
        controller.load()
        controller.pause()
        #expect(!controller.autoplay)
        player.emit(.prepared(preparedInfo))
        player.emit(.playbackStateChanged(.paused))
        try? await Task.sleep(nanoseconds: 50_000_000)
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
        #expect(await until { player.recorded == ["prepare", "seek 2.0 default"] })
        try? await Task.sleep(nanoseconds: 50_000_000)
        #expect(player.recorded == ["prepare", "seek 2.0 default"])
    }
}
