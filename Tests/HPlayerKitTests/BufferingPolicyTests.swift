import Testing
@testable import HPlayerKit

@Suite struct BufferingPolicyTests {
    /// The rules at a 30 s read-ahead, where the figures are easy to follow.
    static let thirtySeconds: BufferingOptions = {
        var options = BufferingOptions()
        options.maximumBufferedDuration = 30
        options.maximumBufferedBytes = .max
        return options
    }()

    /// A 25 fps video track or a 46.875 packets/s audio track (48 kHz, 1024 samples per packet),
    /// with the default capacities (256 packets, 8 video / 16 audio frames).
    /// `read` and `decoded`: whether a packet has been read and a frame decoded at all, queued
    /// still or taken (by default, whether any is queued).
    static func track(_ kind: MediaKind, packets: Int, frames: Int, endOfFile: Bool = false, lastEnd: Double? = nil,
                      read: Bool? = nil, decoded: Bool? = nil) -> TrackBuffer {
        TrackBuffer(kind: kind, packetCount: packets, packetCapacity: 256, frameCount: frames,
                    frameCapacity: kind == .video ? 8 : 16, packetsPerSecond: kind == .video ? 25 : 46.875,
                    isEndOfFile: endOfFile, lastPacketEnd: lastEnd, hasReadPacket: read, hasDecodedFrame: decoded)
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var track: TrackBuffer
        var phase: BufferingPhase
        var fastStart = true
        var playable: Bool
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "open: no video frame yet, however many packets", track: track(.video, packets: 200, frames: 0), phase: .firstOpen, playable: false),
        Row(name: "open: the first video frame, shown at once", track: track(.video, packets: 0, frames: 1), phase: .firstOpen, playable: true),
        Row(name: "open: audio with fast start at once, while not one packet of it has been read", track: track(.audio, packets: 0, frames: 0), phase: .firstOpen, playable: true),
        // The race of an HLS audio rendition (issue 40): both queues empty, as the decoder holds
        // the packets read and its first frame is not out, is not "no packet".
        Row(name: "open: audio whose packets the decoder has all taken waits for its first frame",
            track: track(.audio, packets: 0, frames: 0, read: true, decoded: false), phase: .firstOpen, playable: false),
        Row(name: "open: audio whose first frame the tempo stage has taken from the queue is playable",
            track: track(.audio, packets: 0, frames: 0, read: true, decoded: true), phase: .firstOpen, playable: true),
        Row(name: "open: audio with fast start, once its first frame is decoded", track: track(.audio, packets: 40, frames: 1), phase: .firstOpen, playable: true),
        Row(name: "open: audio with packets waits for its first frame (the timeline starts at the earliest)",
            track: track(.audio, packets: 40, frames: 0), phase: .firstOpen, playable: false),
        Row(name: "open: audio without fast start waits for its frames", track: track(.audio, packets: 100, frames: 8), phase: .firstOpen, fastStart: false, playable: false),
        Row(name: "open: audio without fast start, frames more than half", track: track(.audio, packets: 0, frames: 9), phase: .firstOpen, fastStart: false, playable: true),
        Row(name: "seek: audio fast start needs more packets than its rate", track: track(.audio, packets: 46, frames: 0), phase: .afterSeek, playable: false),
        Row(name: "seek: audio fast start with over a second of packets", track: track(.audio, packets: 47, frames: 0), phase: .afterSeek, playable: true),
        Row(name: "seek: the target's video frame", track: track(.video, packets: 3, frames: 1), phase: .afterSeek, playable: true),
        Row(name: "seek: video with seconds of packets but no frame", track: track(.video, packets: 200, frames: 0), phase: .afterSeek, playable: false),
        Row(name: "end of file with frames left", track: track(.video, packets: 0, frames: 1, endOfFile: true), phase: .steady, playable: true),
        Row(name: "end of file, still decoding its last packets", track: track(.video, packets: 3, frames: 0, endOfFile: true), phase: .afterSeek, playable: false),
        Row(name: "end of file, nothing left at all", track: track(.audio, packets: 0, frames: 0, endOfFile: true), phase: .steady, playable: true),
        Row(name: "refill: below the 3 s minimum", track: track(.video, packets: 60, frames: 8), phase: .steady, playable: false),
        Row(name: "refill: at the 3 s minimum", track: track(.video, packets: 67, frames: 8), phase: .steady, playable: true),
        Row(name: "refill: a fast stream's minimum is capped at half its packet queue",
            track: TrackBuffer(kind: .audio, packetCount: 128, packetCapacity: 256, frameCount: 0, frameCapacity: 16, packetsPerSecond: 187.5, isEndOfFile: false),
            phase: .steady, playable: true),
    ]

    @Test(arguments: rows)
    func playable(_ row: Row) {
        var options = Self.thirtySeconds
        options.fastStartAudio = row.fastStart
        #expect(BufferingPolicy.isPlayable(row.track, phase: row.phase, options: options) == row.playable)
    }

    @Test func bufferedTimeIsPacketsPlusFramesOverTheRate() {
        #expect(BufferingPolicy.bufferedDuration(Self.track(.video, packets: 42, frames: 8)) == 2)
        #expect(abs(BufferingPolicy.bufferedDuration(Self.track(.audio, packets: 78, frames: 16)) - 2.00533) < 0.0001)
    }

    @Test func theSourceIsPlayableWhenEveryTrackIsAndBuffersTheMinimum() {
        let video = Self.track(.video, packets: 100, frames: 8)   // 4.32 s
        let audio = Self.track(.audio, packets: 90, frames: 16)  // 2.26 s
        let report = BufferingPolicy.evaluate([video, audio], phase: .steady, options: Self.thirtySeconds)
        #expect(abs(report.bufferedDuration - 106 / 46.875) < 0.0001)
        #expect(!report.isPlayable)
        #expect(!report.isStarved)
        // The audio minimum is capped at half its packet queue: 128 / 46.875 = 2.73 s.
        #expect(report.progress == 82)
        let full = BufferingPolicy.evaluate([video, Self.track(.audio, packets: 130, frames: 16)], phase: .steady, options: Self.thirtySeconds)
        #expect(full.isPlayable)
        #expect(full.progress == 100)
    }

    @Test func aTrackWithNothingLeftBeforeTheEndStarvesTheSource() {
        let report = BufferingPolicy.evaluate([Self.track(.video, packets: 0, frames: 0), Self.track(.audio, packets: 200, frames: 16)],
                                              phase: .steady, options: Self.thirtySeconds)
        #expect(report.isStarved)
        #expect(report.bufferedDuration == 0)
    }

    struct Transition: Sendable, CustomTestStringConvertible {
        var from: LoadState
        var playable: Bool
        var starved: Bool
        var to: LoadState
        var testDescription: String { "\(from) playable \(playable) starved \(starved) → \(to)" }
    }

    @Test(arguments: [
        Transition(from: .idle, playable: false, starved: true, to: .loading),
        Transition(from: .idle, playable: true, starved: false, to: .playable),
        Transition(from: .loading, playable: false, starved: false, to: .loading),
        Transition(from: .loading, playable: true, starved: false, to: .playable),
        // Once playable, only running dry stops playback: a dip below the minimum does not.
        Transition(from: .playable, playable: false, starved: false, to: .playable),
        Transition(from: .playable, playable: false, starved: true, to: .loading),
    ])
    func loadStateHysteresis(_ row: Transition) {
        let report = BufferingReport(bufferedDuration: 1, isPlayable: row.playable, isStarved: row.starved, progress: 0)
        #expect(BufferingPolicy.nextLoadState(row.from, report: report) == row.to)
    }

    struct Starvation: Sendable, CustomTestStringConvertible {
        var name: String
        var audio: TrackBuffer
        var videoCapacity = 256
        var remedy: BufferingPolicy.StarvationRemedy
        var testDescription: String { name }
    }

    /// Reading is blocked on a full video queue whose last packet ends at 12 s.
    @Test(arguments: [
        Starvation(name: "audio buffered enough: wait", audio: track(.audio, packets: 200, frames: 16, lastEnd: 11.9), remedy: .wait),
        Starvation(name: "audio short, its packets just behind: read on", audio: track(.audio, packets: 3, frames: 16, lastEnd: 9),
                   remedy: .growQueue),
        Starvation(name: "audio short, its last packet long behind: it has ended",
                   audio: track(.audio, packets: 0, frames: 2, lastEnd: 2), remedy: .endTracks([1])),
        Starvation(name: "audio with no packet since the seek: it has ended", audio: track(.audio, packets: 0, frames: 0, lastEnd: nil),
                   remedy: .endTracks([1])),
        Starvation(name: "audio short, its own queue half full: reading is not what holds it",
                   audio: TrackBuffer(kind: .audio, packetCount: 128, packetCapacity: 256, frameCount: 0, frameCapacity: 16,
                                      packetsPerSecond: 10, isEndOfFile: false, lastPacketEnd: 11), remedy: .wait),
        Starvation(name: "the queue at its growth limit grows no more", audio: track(.audio, packets: 3, frames: 16, lastEnd: 9),
                   videoCapacity: 2048, remedy: .wait),
    ])
    func starvationRemedy(_ row: Starvation) {
        var video = Self.track(.video, packets: 256, frames: 8, lastEnd: 12)
        video.packetCapacity = row.videoCapacity
        let remedy = BufferingPolicy.starvationRemedy(blockedOn: 0, tracks: [video, row.audio], phase: .steady,
                                                      options: Self.thirtySeconds, capacityLimit: 2048)
        #expect(remedy == row.remedy)
    }

    @Test("A local file (the default options) is read 2 s ahead, or 128 MiB, and refills to 1 s (where reading resumes) after running dry")
    func localFilesReadTwoSecondsAhead() {
        let options = BufferingOptions()
        #expect(!BufferingPolicy.shouldPauseReading(isPaused: false, bufferedDuration: 2, options: options))
        #expect(BufferingPolicy.shouldPauseReading(isPaused: false, bufferedDuration: 2.01, options: options))
        #expect(BufferingPolicy.shouldPauseReading(isPaused: false, bufferedDuration: 0.5, bufferedBytes: 128 << 20 + 1, options: options))
        #expect(BufferingPolicy.shouldPauseReading(isPaused: true, bufferedDuration: 1, options: options))
        #expect(!BufferingPolicy.shouldPauseReading(isPaused: true, bufferedDuration: 0.99, options: options))
        #expect(BufferingPolicy.requiredDuration(Self.track(.video, packets: 0, frames: 0), options: options) == 1)
    }

    @Test func readingPausesAboveTheMaximumAndResumesBelowHalf() {
        let options = Self.thirtySeconds
        #expect(!BufferingPolicy.shouldPauseReading(isPaused: false, bufferedDuration: 30, options: options))
        #expect(BufferingPolicy.shouldPauseReading(isPaused: false, bufferedDuration: 30.1, options: options))
        #expect(BufferingPolicy.shouldPauseReading(isPaused: true, bufferedDuration: 15, options: options))
        #expect(!BufferingPolicy.shouldPauseReading(isPaused: true, bufferedDuration: 14.9, options: options))
    }

    @Test func networkMediaReadsAheadToTheLimitsAndResumesNearThem() {
        let options = BufferingOptions().readingAhead(ReadAhead(seconds: 120, bytes: 1000))
        #expect(options.maximumBufferedDuration == 120 && options.maximumBufferedBytes == 1000 && options.growsPacketQueues)
        #expect(options.minimumBufferedDuration == BufferingOptions().minimumBufferedDuration)
        #expect(!BufferingPolicy.shouldPauseReading(isPaused: false, bufferedDuration: 120, bufferedBytes: 1000, options: options))
        #expect(BufferingPolicy.shouldPauseReading(isPaused: false, bufferedDuration: 120.1, bufferedBytes: 0, options: options))
        #expect(BufferingPolicy.shouldPauseReading(isPaused: false, bufferedDuration: 1, bufferedBytes: 1001, options: options))
        // Paused, reading resumes once under 90 % of both limits.
        #expect(BufferingPolicy.shouldPauseReading(isPaused: true, bufferedDuration: 108, bufferedBytes: 0, options: options))
        #expect(BufferingPolicy.shouldPauseReading(isPaused: true, bufferedDuration: 1, bufferedBytes: 900, options: options))
        #expect(!BufferingPolicy.shouldPauseReading(isPaused: true, bufferedDuration: 107.9, bufferedBytes: 899, options: options))
    }

    @Test func aReadAheadShorterThanTheMinimumIsNeverWaitedForInVain() {
        // --cache-secs 2 with --cache-pause-wait 3: reading stops under 2 s, so 1.8 s is enough.
        let short = BufferingOptions().readingAhead(ReadAhead(seconds: 2, bytes: 1 << 30))
        let video = Self.track(.video, packets: 37, frames: 8)  // 1.8 s
        #expect(BufferingPolicy.requiredDuration(video, options: short) == 1.8)
        #expect(BufferingPolicy.evaluate([video], phase: .steady, options: short).isPlayable)
        // --demuxer-max-bytes reached before the minimum: what is buffered is all there will be.
        let small = BufferingOptions().readingAhead(ReadAhead(seconds: 120, bytes: 10_000))
        var filled = Self.track(.video, packets: 20, frames: 2)
        filled.packetBytes = 9_000
        #expect(BufferingPolicy.evaluate([filled], phase: .steady, options: small).isPlayable)
        filled.packetBytes = 8_999
        #expect(!BufferingPolicy.evaluate([filled], phase: .steady, options: small).isPlayable)
    }

    @Test func readingNeverPausesWhileATrackHasNothing() {
        let options = BufferingOptions().readingAhead(ReadAhead(seconds: 120, bytes: 1000))
        #expect(!BufferingPolicy.shouldPauseReading(isPaused: false, bufferedDuration: 0, bufferedBytes: 5000, isStarved: true, options: options))
        #expect(!BufferingPolicy.shouldPauseReading(isPaused: true, bufferedDuration: 0, bufferedBytes: 5000, isStarved: true, options: options))
    }

    struct Growth: Sendable, CustomTestStringConvertible {
        var name: String
        var packets: Int
        var capacity = 256
        var bytes = 0
        var growsQueues = true
        var seconds = 60.0
        var grows: Bool
        var testDescription: String { name }
    }

    /// A 25 fps video track; read-ahead of 60 s (unless said) and 1 MB.
    @Test(arguments: [
        Growth(name: "a full queue under both limits grows", packets: 256, grows: true),
        Growth(name: "a queue with room does not", packets: 255, grows: false),
        Growth(name: "not for local files", packets: 256, growsQueues: false, grows: false),
        Growth(name: "not past the time limit", packets: 1600, capacity: 1600, grows: false),
        Growth(name: "not past the byte limit", packets: 256, bytes: 1_000_000, grows: false),
        Growth(name: "not past the capacity bound, whatever the time limit", packets: 1 << 16, capacity: 1 << 16, seconds: .infinity,
               grows: false),
    ])
    func readAheadGrowth(_ row: Growth) {
        var options = BufferingOptions().readingAhead(ReadAhead(seconds: row.seconds, bytes: 1_000_000))
        options.growsPacketQueues = row.growsQueues
        var track = Self.track(.video, packets: row.packets, frames: 0)
        track.packetCapacity = row.capacity
        #expect(BufferingPolicy.shouldGrowForReadAhead(track, bufferedBytes: row.bytes, options: options) == row.grows)
    }

    @Test func evaluationAddsUpTheQueuedBytes() {
        var video = Self.track(.video, packets: 10, frames: 2)
        video.packetBytes = 1000
        var audio = Self.track(.audio, packets: 10, frames: 2)
        audio.packetBytes = 24
        #expect(BufferingPolicy.evaluate([video, audio], phase: .steady, options: BufferingOptions()).bufferedBytes == 1024)
    }
}

@Suite struct SpeedMeterTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        /// (seconds, bytes) arrivals.
        var arrivals: [(Double, Int64)]
        var at: Double
        var speed: Double
        var testDescription: String { name }
    }

    @Test(arguments: [
        Row(name: "nothing yet", arrivals: [], at: 5, speed: 0),
        Row(name: "under a window: no figure yet", arrivals: [(0, 100), (0.5, 100)], at: 0.6, speed: 0),
        Row(name: "a full window: its bytes over its length", arrivals: [(0, 100), (0.5, 100), (1, 100)], at: 1.2, speed: 300),
        Row(name: "two windows: the last one", arrivals: [(0, 100), (1, 100), (1.5, 1000), (2, 1000)], at: 2.1, speed: 2000),
        Row(name: "silent for two windows: 0", arrivals: [(0, 100), (1, 100)], at: 3.1, speed: 0),
        Row(name: "after a silence, the old figure is gone", arrivals: [(0, 100), (1, 100), (5, 10)], at: 5.1, speed: 0),
    ])
    func speed(_ row: Row) {
        var meter = SpeedMeter()
        for (at, bytes) in row.arrivals { meter.add(bytes, at: at) }
        #expect(meter.speed(at: row.at) == row.speed)
    }
}
