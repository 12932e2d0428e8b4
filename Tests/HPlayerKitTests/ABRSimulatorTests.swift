import Testing
@testable import HPlayerKit

@Suite struct ThroughputTraceTests {
    @Test func aTraceIsReadAndEachRateHoldsUntilTheNextSample() throws {
        let trace = try #require(ThroughputTrace(name: "t", text: "0.0\t1.0\n2.0\t4.0\n\n"))
        #expect(trace.times == [0, 2] && trace.rates == [1_000_000, 4_000_000])
        #expect(trace.duration == 4)
        #expect(trace.rate(at: 1) == 1_000_000 && trace.rate(at: 3) == 4_000_000)
        // 1 Mbit in the first second; 6 Mbit: 2 in the first two seconds, 4 in the next.
        #expect(trace.seconds(toCarry: 1_000_000, from: 0) == 1)
        #expect(abs(trace.seconds(toCarry: 6_000_000, from: 0) - 3) < 1e-9)
        // Past its end it starts over.
        #expect(trace.rate(at: 5) == 1_000_000)
        #expect(abs(trace.bits(from: 3, to: 5) - 5_000_000) < 1e-3)
    }

    @Test("A file that is not a trace is refused", arguments: ["", "0.0\n", "zero\t1\n", "0\t1\n1\t-2\n", "1\t1\n0\t1\n"])
    func refused(text: String) {
        #expect(ThroughputTrace(name: "t", text: text) == nil)
    }
}

@Suite struct ABRSimulatorTests {
    static let steady = ThroughputTrace(name: "steady", times: [0], rates: [10_000_000])

    @Test func aFastLinkAtTheLowestRungNeverStalls() {
        let result = ABRSimulator().run(.fixed(0), ladder: .pensieve(), trace: Self.steady)
        #expect(result.rungs == Array(repeating: 0, count: 48))
        #expect(result.rebufferSeconds == 0 && result.switchesPerMinute == 0)
        #expect(abs(result.qoe - 48 * 0.3) < 1e-9 && abs(result.averageBitrate - 0.3) < 1e-9)
        #expect(result.startupDelay > 0 && result.startupDelay < 1)
    }

    @Test func theTopRungOnASlowLinkStallsAndPaysForIt() {
        // 4.3 Mb/s segments over 2 Mb/s: each 8.6 s to fetch for 4 s of media.
        let slow = ThroughputTrace(name: "slow", times: [0], rates: [2_000_000])
        var simulator = ABRSimulator()
        simulator.latency = 0
        let result = simulator.run(.fixed(5), ladder: .pensieve(segments: 10), trace: slow)
        #expect(abs(result.rebufferSeconds - 9 * 4.6) < 1e-6)
        #expect(abs(result.qoe - (10 * 4.3 - 4.3 * 9 * 4.6)) < 1e-6)
        #expect(result.rebufferRatio > 0.5)
    }

    @Test func switchesAreCountedAndPaidForByTheChangeOfBitRate() {
        let result = ABRSimulator.score([0, 5, 5, 0], ladder: .pensieve(), stalled: 0, startup: 1)
        #expect(abs(result.qoe - (0.3 + 4.3 + 4.3 + 0.3 - 4.0 - 4.0)) < 1e-9)
        #expect(result.switchesPerMinute == 2 / (16.0 / 60))
    }

    @Test func aSegmentTooSlowToArriveIsGivenUpForALowerRung() {
        // 5 Mb/s for 20 s, then 200 kb/s: the top rung, fetched into the fall, is given up.
        let fall = ThroughputTrace(name: "fall", times: [0, 20, 200], rates: [5_000_000, 200_000, 200_000])
        var simulator = ABRSimulator()
        simulator.latency = 0
        let pinned = simulator.run(.fixed(5), ladder: .pensieve(segments: 12), trace: fall)
        let adaptive = simulator.run(.throughput, ladder: .pensieve(segments: 12), trace: fall)
        #expect(adaptive.rebufferSeconds < pinned.rebufferSeconds)
        #expect(adaptive.rungs.last == 0)
    }

    @Test("auto on a steady link at 1.5 times a rung's bit rate: that rung from the second segment on, and no other", arguments: [
        (1_125_000.0, 1), (1_800_000, 2), (2_775_000, 3),
    ])
    func autoSettles(rate: Double, rung: Int) {
        let result = ABRSimulator().run(.auto, ladder: .pensieve(), trace: ThroughputTrace(name: "steady", times: [0], rates: [rate]))
        #expect(Array(result.rungs.dropFirst()) == Array(repeating: rung, count: 47), "\(result.rungs)")
    }

    @Test("Every policy plays a session to its end", arguments: ABRPolicy.compared)
    func everyPolicyPlays(policy: ABRPolicy) {
        let varying = ThroughputTrace(name: "varying", times: [0, 30, 60, 90], rates: [3_000_000, 800_000, 5_000_000, 1_500_000])
        let result = ABRSimulator().run(policy, ladder: .pensieve(), trace: varying)
        #expect(result.rungs.count == 48 && result.averageBitrate >= 0.3)
    }
}
