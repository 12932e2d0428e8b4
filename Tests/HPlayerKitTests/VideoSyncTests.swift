import Testing
@testable import HPlayerKit

@Suite struct VideoSyncTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var queued: [Double]
        var clock: Double
        var mode: VideoSync.Mode
        var expected: VideoSync.Decision
        var testDescription: String { "\(mode) clock \(clock) queued \(queued)" }
    }

    static let rows: [Row] = [
        // Audio master: the newest frame at or before the clock, the skipped ones dropped.
        Row(queued: [0, 0.04, 0.08], clock: 0.05, mode: .followAudio, expected: .init(dropCount: 1, present: 1, nextDue: 0.08)),
        Row(queued: [0, 0.04, 0.08], clock: 0.0, mode: .followAudio, expected: .init(present: 0, nextDue: 0.04)),
        Row(queued: [0, 0.04, 0.08], clock: 1.0, mode: .followAudio, expected: .init(dropCount: 2, present: 2)),
        Row(queued: [0.1, 0.14], clock: 0.05, mode: .followAudio, expected: .init(nextDue: 0.1)),
        Row(queued: [0, 0.04], clock: 0.0395, mode: .followAudio, expected: .init(dropCount: 1, present: 1)),
        Row(queued: [], clock: 3, mode: .followAudio, expected: .init()),
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
        #expect(VideoSync.decide(queued: row.queued, clock: row.clock, mode: row.mode) == row.expected)
    }
}

@Suite struct TimestampRepairTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        /// (best_effort_timestamp, duration) for each frame in decode output order.
        var frames: [(Int64?, Int64)]
        var expected: [Int64?]
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "increasing timestamps are kept", frames: [(0, 10), (10, 10), (20, 10)], expected: [0, 10, 20]),
        Row(name: "a duplicate becomes the prediction", frames: [(0, 10), (0, 10), (20, 10)], expected: [0, 10, 20]),
        Row(name: "a step back becomes the prediction", frames: [(0, 10), (10, 10), (5, 10), (30, 10)], expected: [0, 10, 20, 30]),
        Row(name: "earlier than pts + duration is predicted", frames: [(0, 10), (7, 10)], expected: [0, 10]),
        Row(name: "a gap forward is kept", frames: [(0, 10), (50, 10)], expected: [0, 50]),
        Row(name: "missing timestamps are predicted", frames: [(0, 10), (nil, 10), (nil, 5), (25, 5)], expected: [0, 10, 20, 25]),
        Row(name: "nothing to go on", frames: [(nil, 10), (3, 10)], expected: [nil, 3]),
    ]

    @Test(arguments: rows)
    func repair(_ row: Row) {
        var repair = TimestampRepair()
        let got = row.frames.map { repair.pts(bestEffort: $0.0, duration: $0.1) }
        #expect(got == row.expected)
    }

    @Test func resetForgetsThePrediction() {
        var repair = TimestampRepair()
        _ = repair.pts(bestEffort: 100, duration: 10)
        repair.reset()
        #expect(repair.pts(bestEffort: 0, duration: 10) == 0)
    }
}

@Suite struct LoopPassesTests {
    @Test func framesArePlacedInThePassTheirTimestampFallsIn() {
        var passes = LoopPasses(startTicks: 100)
        #expect(passes.pass(containing: 150) == .init(number: 0, offset: 0))
        passes.noteReading(pass: 1, offset: 1000)
        // Reordered frames of pass 0 still leave the decoder after pass 1's first packets.
        #expect(passes.pass(containing: 1050) == .init(number: 0, offset: 0))
        #expect(passes.pass(containing: 1100) == .init(number: 1, offset: 1000))
        passes.noteReading(pass: 2, offset: 2000)
        #expect(passes.pass(containing: 2099) == .init(number: 1, offset: 1000))
        #expect(passes.pass(containing: 2100) == .init(number: 2, offset: 2000))
        passes.reset()
        #expect(passes.pass(containing: 150) == .init(number: 0, offset: 0))
    }
}

@Suite struct MasterClockTests {
    @Test func runsFromWhereItWasSetFreezesAndResumes() {
        let clock = MasterClock()
        #expect(clock.time(at: 10) == nil)
        clock.set(2.0, at: 10, loopOffset: 0)
        #expect(clock.time(at: 10.5) == 2.5)
        clock.freeze(at: 11)
        #expect(clock.time(at: 20) == 3.0)
        clock.resume(at: 20)
        #expect(clock.time(at: 21) == 4.0)
        clock.set(7.0, at: 30, loopOffset: 5)
        #expect(clock.mediaTime(at: 31) == 3.0)
        clock.invalidate()
        #expect(clock.time(at: 31) == nil)
    }
}
