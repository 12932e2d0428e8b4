import CFFmpeg
import Testing
@testable import HPlayerKit

@Suite struct VideoSyncTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var queued: [Double]
        var clock: Double
        var mode: VideoSync.Mode
        var isRestart = false
        var expected: VideoSync.Decision
        var testDescription: String { "\(mode)\(isRestart ? " restart" : "") clock \(clock) queued \(queued)" }
    }

    static let rows: [Row] = [
        // Audio master: the newest frame at or before the clock, the skipped ones dropped.
        Row(queued: [0, 0.04, 0.08], clock: 0.05, mode: .followAudio, expected: .init(dropCount: 1, present: 1, nextDue: 0.08)),
        Row(queued: [0, 0.04, 0.08], clock: 0.0, mode: .followAudio, expected: .init(present: 0, nextDue: 0.04)),
        Row(queued: [0, 0.04, 0.08], clock: 1.0, mode: .followAudio, expected: .init(dropCount: 2, present: 2)),
        Row(queued: [0.1, 0.14], clock: 0.05, mode: .followAudio, expected: .init(nextDue: 0.1)),
        Row(queued: [0, 0.04], clock: 0.0395, mode: .followAudio, expected: .init(dropCount: 1, present: 1)),
        Row(queued: [], clock: 3, mode: .followAudio, expected: .init()),
        // A restart: the first frame at once, though the clock (its sound) is a device latency behind…
        Row(queued: [2.0, 2.04], clock: 1.979, mode: .followAudio, isRestart: true, expected: .init(present: 0, nextDue: 2.04)),
        // …but not one far ahead of the sound, and never more than one frame early.
        Row(queued: [2.0, 2.04], clock: 1.8, mode: .followAudio, isRestart: true, expected: .init(nextDue: 2.0)),
        Row(queued: [2.0, 2.04, 2.08], clock: 2.05, mode: .followAudio, isRestart: true, expected: .init(dropCount: 1, present: 1, nextDue: 2.08)),
        Row(queued: [2.0, 2.04], clock: 1.979, mode: .followAudio, expected: .init(nextDue: 2.0)),
        // Self-paced: in order, never dropped; far behind moves the clock.
        Row(queued: [0, 0.04], clock: 0.05, mode: .selfPaced, expected: .init(present: 0, nextDue: 0.04)),
        Row(queued: [0, 0.04], clock: 0.5, mode: .selfPaced, expected: .init(present: 0, resetClock: true, nextDue: 0.04)),
        Row(queued: [0.2], clock: 0.1, mode: .selfPaced, expected: .init(nextDue: 0.2)),
        Row(queued: [0.2], clock: 0.2, mode: .selfPaced, expected: .init(present: 0)),
        // Untimed: the next frame at once.
        Row(queued: [5, 6], clock: 0, mode: .untimed, expected: .init(present: 0)),
    ]

    @Test(arguments: rows)
    func decision(_ row: Row) {
        #expect(VideoSync.decide(queued: row.queued, clock: row.clock, mode: row.mode, isRestart: row.isRestart) == row.expected)
    }
}

@Suite struct TimestampRepairTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        /// (best_effort_timestamp, duration) for each frame in decode output order.
        var frames: [(Int64?, Int64)]
        var expected: [Int64]
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "increasing timestamps are kept", frames: [(0, 10), (10, 10), (20, 10)], expected: [0, 10, 20]),
        Row(name: "a duplicate becomes the prediction", frames: [(0, 10), (0, 10), (20, 10)], expected: [0, 10, 20]),
        Row(name: "a step back becomes the prediction", frames: [(0, 10), (10, 10), (5, 10), (30, 10)], expected: [0, 10, 20, 30]),
        Row(name: "earlier than pts + duration is predicted", frames: [(0, 10), (7, 10)], expected: [0, 10]),
        Row(name: "a gap forward is kept", frames: [(0, 10), (50, 10)], expected: [0, 50]),
        Row(name: "missing timestamps are predicted", frames: [(0, 10), (nil, 10), (nil, 5), (25, 5)], expected: [0, 10, 20, 25]),
        Row(name: "no first timestamp: the start (5), then predicted from it", frames: [(nil, 10), (12, 10), (nil, 10)], expected: [5, 15, 25]),
        Row(name: "no timestamps at all (raw H.264): paced by the durations", frames: [(nil, 40), (nil, 40), (nil, 48)], expected: [5, 45, 85]),
    ]

    @Test(arguments: rows)
    func repair(_ row: Row) {
        var repair = TimestampRepair()
        let got = row.frames.map { repair.pts(bestEffort: $0.0, duration: $0.1, start: 5) }
        #expect(got == row.expected)
    }

    @Test func resetForgetsThePrediction() {
        var repair = TimestampRepair()
        _ = repair.pts(bestEffort: 100, duration: 10, start: 0)
        repair.reset()
        #expect(repair.pts(bestEffort: 0, duration: 10, start: 0) == 0)
    }
}

@Suite struct TimelineSegmentsTests {
    @Test func framesArePlacedInTheSegmentTheirTimestampFallsIn() {
        var segments = TimelineSegments()
        #expect(segments.segment(containing: 150) == TimelineSegment())
        let second = TimelineSegment(offset: 1000, loopOffset: 1000, loopPass: 1, start: 1100)
        segments.noteReading(second)
        // Reordered frames of pass 0 still leave the decoder after pass 1's first packets.
        #expect(segments.segment(containing: 1050) == TimelineSegment())
        #expect(segments.segment(containing: 1100) == second)
        let third = TimelineSegment(offset: 2000, loopOffset: 2000, loopPass: 2, start: 2100)
        segments.noteReading(third)
        #expect(segments.segment(containing: 2099) == second)
        #expect(segments.segment(containing: 2100) == third)
        segments.reset()
        #expect(segments.segment(containing: 150) == TimelineSegment())
    }
}

@Suite struct StreamTimelineTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        /// Decode timestamps (seconds, one tick each) of packets lasting 10 ticks.
        var timestamps: [Int64?]
        /// The timeline timestamp each packet gets (dts + its segment's offset).
        var expected: [Int64?]
        var testDescription: String { name }
    }

    static let seconds = TimeBase(AVRational(num: 1, den: 1))
    static let limits = StreamTimeline.Limits(forward: 100, backward: 20)

    static let rows: [Row] = [
        Row(name: "steady timestamps are left alone", timestamps: [0, 10, 20, 30], expected: [0, 10, 20, 30]),
        Row(name: "a gap within the limit is kept", timestamps: [0, 10, 100, 110], expected: [0, 10, 100, 110]),
        Row(name: "a jump forward past the limit continues from the last end",
            timestamps: [0, 10, 95_000, 95_010], expected: [0, 10, 20, 30]),
        Row(name: "a jump back past the limit continues from the last end",
            timestamps: [500, 510, 0, 10], expected: [500, 510, 520, 530]),
        Row(name: "a small step back is not a jump", timestamps: [100, 110, 105, 120], expected: [100, 110, 105, 120]),
        Row(name: "two jumps add up", timestamps: [0, 10, 5000, 5010, 0, 10], expected: [0, 10, 20, 30, 40, 50]),
        Row(name: "packets with no timestamp keep the segment", timestamps: [0, nil, 10, 9000], expected: [0, nil, 10, 20]),
    ]

    @Test(arguments: rows)
    func placement(_ row: Row) {
        var timeline = StreamTimeline()
        var jump: TimestampJump?
        let placed = row.timestamps.map { dts -> Int64? in
            let segment = timeline.place(stream: 0, dts: dts, duration: 10, timeBase: Self.seconds, limits: Self.limits, lastJump: &jump)
            return dts.map { $0 + segment.offset }
        }
        #expect(placed == row.expected)
    }

    struct OutlierRow: Sendable, CustomTestStringConvertible {
        var name: String
        /// Decode timestamps in milliseconds of packets lasting 20 ms, placed before the one asked about.
        var placed: [Int64]
        var dts: Int64?
        var isOutOfLine: Bool
        /// The ticks that bring it back to where the stream stood.
        var correction: Int64
        var testDescription: String { name }
    }

    static let milliseconds = TimeBase(AVRational(num: 1, den: 1000))

    static let outlierRows: [OutlierRow] = [
        OutlierRow(name: "the next packet is in line", placed: [0, 20], dts: 40, isOutOfLine: false, correction: 0),
        OutlierRow(name: "a small gap is in line", placed: [0, 20], dts: 1040, isOutOfLine: false, correction: -1000),
        OutlierRow(name: "over a second ahead is out of line", placed: [0, 20], dts: 16_040, isOutOfLine: true, correction: -16_000),
        OutlierRow(name: "over a second back is out of line", placed: [5000, 5020], dts: 2000, isOutOfLine: true, correction: 3040),
        OutlierRow(name: "the first packet has no line to be out of", placed: [], dts: 16_000, isOutOfLine: false, correction: 0),
        OutlierRow(name: "no timestamp is never out of line", placed: [0], dts: nil, isOutOfLine: false, correction: 0),
        OutlierRow(name: "after a jump the line is the shifted one", placed: [0, 20, 500_000], dts: 500_020, isOutOfLine: false, correction: 0),
    ]

    @Test(arguments: outlierRows)
    func outliers(_ row: OutlierRow) {
        var timeline = StreamTimeline()
        var jump: TimestampJump?
        for dts in row.placed {
            _ = timeline.place(stream: 0, dts: dts, duration: 20, timeBase: Self.milliseconds,
                               limits: StreamTimeline.Limits(forward: 60, backward: 10), lastJump: &jump)
        }
        #expect(timeline.isOutOfLine(dts: row.dts, timeBase: Self.milliseconds) == row.isOutOfLine)
        if let dts = row.dts { #expect(timeline.correction(toLineFrom: dts) == row.correction) }
    }

    @Test func streamsJumpingTogetherTakeTheSameShift() {
        var video = StreamTimeline(), audio = StreamTimeline()
        var jump: TimestampJump?
        func place(_ timeline: inout StreamTimeline, _ stream: Int, _ dts: Int64) -> Int64 {
            dts + timeline.place(stream: stream, dts: dts, duration: 10, timeBase: Self.seconds, limits: Self.limits, lastJump: &jump).offset
        }
        #expect(place(&video, 0, 0) == 0)
        #expect(place(&audio, 1, 3) == 3)
        #expect(place(&video, 0, 10) == 10)
        #expect(place(&audio, 1, 13) == 13)
        // Both jump to 9000 (audio 3 ahead of video, as before); video jumps first.
        #expect(place(&video, 0, 9000) == 20)
        #expect(place(&audio, 1, 9003) == 23, "audio took video's shift: still 3 ahead")
        // A second jump back to the same place is a new one, not the old one again.
        #expect(place(&video, 0, 9010) == 30)
        #expect(place(&video, 0, 3) == 40)
        #expect(place(&audio, 1, 6) == 43)
    }

    @Test func aLoopPassStartsOverAndKeepsTheLoopingApart() {
        var timeline = StreamTimeline()
        var jump: TimestampJump?
        _ = timeline.place(stream: 0, dts: 0, duration: 10, timeBase: Self.seconds, limits: Self.limits, lastJump: &jump)
        _ = timeline.place(stream: 0, dts: 5000, duration: 10, timeBase: Self.seconds, limits: Self.limits, lastJump: &jump)
        #expect(timeline.discontinuityOffset == -4990)
        timeline.startPass(1, loopOffset: 30, startTicks: 0)
        let segment = timeline.place(stream: 0, dts: 0, duration: 10, timeBase: Self.seconds, limits: Self.limits, lastJump: &jump)
        #expect(segment == TimelineSegment(offset: 30, loopOffset: 30, loopPass: 1, start: 30))
        #expect(timeline.discontinuityOffset == 0)
    }
}

@Suite struct MasterClockTests {
    @Test func runsFromWhereItWasSetFreezesAndResumes() {
        let clock = MasterClock()
        #expect(clock.time(at: 10) == nil)
        clock.set(2.0, at: 10, loopOffset: 0, serial: 0, by: .audio)
        #expect(clock.time(at: 10.5) == 2.5)
        clock.freeze(at: 11)
        #expect(clock.time(at: 20) == 3.0)
        clock.resume(at: 20)
        #expect(clock.time(at: 21) == 4.0)
        clock.set(7.0, at: 30, loopOffset: 5, serial: 0, by: .video)
        #expect(clock.mediaTime(at: 31) == 3.0)
        clock.invalidate(serial: 1)
        #expect(clock.time(at: 31) == nil)
    }

    @Test func dropsAStaleSerialsUpdates() {
        let clock = MasterClock()
        clock.set(2.0, at: 10, loopOffset: 0, serial: 0, by: .audio)
        clock.invalidate(serial: 1)
        // A callback still playing the old position: its update is not the new serial's clock.
        clock.set(2.5, at: 10.5, loopOffset: 0, serial: 0, by: .audio)
        clock.freeze(at: 10.6, serial: 0, by: .audio)
        #expect(clock.time(at: 11) == nil)
        clock.set(40.0, at: 12, loopOffset: 0, serial: 1, by: .audio)
        #expect(clock.time(at: 13) == 41.0)
        clock.freeze(at: 13, serial: 0, by: .video)
        #expect(clock.time(at: 14) == 42.0)
    }

    @Test func keepsItsRateAcrossUpdatesThatNameNone() {
        let clock = MasterClock()
        clock.setRate(2, at: 0)
        #expect(clock.rate == 2)
        clock.set(1.0, at: 10, loopOffset: 0, serial: 0, by: .video)
        #expect(clock.time(at: 11) == 3.0)
        clock.setRate(0.5, at: 11)
        #expect(clock.time(at: 13) == 4.0)
        clock.invalidate(serial: 1)
        #expect(clock.rate == 0.5)
        clock.set(1.0, at: 10, loopOffset: 0, rate: 1.5, serial: 1, by: .audio)
        #expect(clock.time(at: 12) == 4.0)
    }

    /// The newest update wins, whoever wrote it: the player's pause freezes what the audio set.
    @Test func theNewestUpdateOfAnyWriterIsTheClock() {
        let clock = MasterClock()
        clock.set(5.0, at: 100, loopOffset: 0, serial: 0, by: .audio)
        clock.freeze(at: 101)
        clock.set(9.0, at: 102, loopOffset: 0, serial: 0, by: .video)
        #expect(clock.time(at: 103) == 10.0)
        clock.freeze(at: 104)
        #expect(clock.time(at: 110) == 11.0)
        clock.resume(at: 110)
        #expect(clock.time(at: 111) == 12.0)
    }

    /// Readers racing a writer never see half an update: every update keeps pts == time, so a
    /// torn read would show up as a clock that is not the time asked.
    @Test func aReadRacingAWriteSeesAWholeUpdate() async {
        let clock = MasterClock()
        clock.set(1, at: 1, loopOffset: 0, serial: 0, by: .audio)
        await withTaskGroup(of: Int.self) { group in
            group.addTask {
                for step in 1...200_000 { clock.set(Double(step), at: Double(step), loopOffset: 0, rate: 1, serial: 0, by: .audio) }
                return 0
            }
            for _ in 0..<2 {
                group.addTask {
                    var torn = 0
                    for _ in 0..<200_000 where clock.time(at: 7) != 7 { torn += 1 }
                    return torn
                }
            }
            var torn = 0
            for await count in group { torn += count }
            #expect(torn == 0)
        }
    }
}
