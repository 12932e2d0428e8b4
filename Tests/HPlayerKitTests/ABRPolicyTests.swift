import Testing
@testable import HPlayerKit

/// The bitrate policies, by table, on a ladder of 1, 2 and 4 Mb/s with 4 s segments and a 30 s buffer.
@Suite struct ABRPolicyTests {
    static let ladder: [Double] = [1_000_000, 2_000_000, 4_000_000]

    /// Downloads of 4 s segments at `mbps`, one after another, the last finishing at `now`.
    static func samples(_ mbps: [Double], now: Double = 100) -> [ThroughputSample] {
        mbps.enumerated().map { index, rate in
            ThroughputSample(bytes: rate * 1_000_000 / 8 * 2, seconds: 2, finishedAt: now - 2 * Double(mbps.count - 1 - index))
        }
    }

    static func input(current: Int?, buffer: Double, mbps: [Double] = [], initial: Double? = nil, lastSwitchAt: Double? = nil,
                      starved: Bool = false, rungs: [Double] = ladder) -> ABRInput {
        var input = ABRInput(bitrates: rungs, segmentDuration: 4, buffer: buffer, maxBuffer: 30, now: 100)
        input.current = current
        input.samples = samples(mbps)
        input.initialEstimate = initial
        input.lastSwitchAt = lastSwitchAt
        input.isStarved = starved
        input.segmentsLeft = 20
        return input
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var policy: ABRPolicy
        var input: ABRInput
        var memory = ABRMemory()
        var rung: Int
        var testDescription: String { "\(policy.name): \(name)" }
    }

    static var steadyBola: ABRMemory {
        var memory = ABRMemory()
        memory.bolaIsStarting = false
        return memory
    }

    static var justWentUp: ABRMemory {
        var memory = ABRMemory()
        memory.lastSwitchWasUp = true
        return memory
    }

    @Test(arguments: [
        // What every policy obeys.
        Row(name: "one variant: no choice", policy: .auto, input: input(current: 0, buffer: 20, mbps: [50], rungs: [1_000_000]), rung: 0),
        Row(name: "no switch within 4 s of the last", policy: .throughput, input: input(current: 0, buffer: 20, mbps: [10, 10], lastSwitchAt: 98), rung: 0),
        Row(name: "but a switch down with the buffer nearly empty", policy: .throughput,
            input: input(current: 2, buffer: 1, mbps: [1.5, 1.5], lastSwitchAt: 98), rung: 0),
        Row(name: "fixed pins its rung", policy: .fixed(1), input: input(current: 0, buffer: 0, mbps: [50]), rung: 1),

        // seed: the design's buffer rule.
        Row(name: "starts within 0.8 of the initial estimate", policy: .seed, input: input(current: nil, buffer: 0, initial: 3_000_000), rung: 1),
        Row(name: "starts lowest without an estimate", policy: .seed, input: input(current: nil, buffer: 0), rung: 0),
        Row(name: "up past half the maximum buffer", policy: .seed, input: input(current: 1, buffer: 16, mbps: [1]), rung: 2),
        Row(name: "stays under half", policy: .seed, input: input(current: 1, buffer: 14, mbps: [9]), rung: 1),
        Row(name: "down when playback ran dry", policy: .seed, input: input(current: 1, buffer: 4, mbps: [9], starved: true), rung: 0),
        Row(name: "half the maximum buffer between switches", policy: .seed, input: input(current: 1, buffer: 20, lastSwitchAt: 90), rung: 1),

        // throughput: hls.js's, 0.95 to stay or go down, 0.7 to go up.
        Row(name: "up to what 0.7 of 3 Mb/s carries", policy: .throughput, input: input(current: 0, buffer: 10, mbps: [3, 3, 3]), rung: 1),
        Row(name: "down from what 0.95 of 3 Mb/s does not", policy: .throughput, input: input(current: 2, buffer: 10, mbps: [3, 3, 3]), rung: 1),
        Row(name: "stays where 0.95 carries it", policy: .throughput, input: input(current: 1, buffer: 10, mbps: [2.5, 2.5]), rung: 1),
        Row(name: "not up where only 0.95 would", policy: .throughput, input: input(current: 0, buffer: 10, mbps: [2.5, 2.5]), rung: 0),
        Row(name: "the lower of the two averages: a fall shows within a few downloads", policy: .throughput,
            input: input(current: 1, buffer: 10, mbps: [8, 8, 8, 8, 1, 1, 1, 1, 1]), rung: 0),

        // bola: BOLA-BASIC as dash.js runs it.
        Row(name: "starts from 0.9 of the throughput", policy: .bola, input: input(current: nil, buffer: 0, initial: 3_000_000), rung: 1),
        Row(name: "a full buffer and a fast link: the top", policy: .bola, input: input(current: 2, buffer: 25, mbps: [10, 10]),
            memory: steadyBola, rung: 2),
        Row(name: "a low buffer: the bottom", policy: .bola, input: input(current: 1, buffer: 4, mbps: [10, 10]), memory: steadyBola, rung: 0),
        Row(name: "BOLA-O: not up past what the throughput carries", policy: .bola, input: input(current: 1, buffer: 25, mbps: [3, 3]),
            memory: steadyBola, rung: 1),

        // auto: ours.
        Row(name: "the rung a steady link sustains", policy: .auto, input: input(current: 0, buffer: 20, mbps: [2.5, 2.5, 2.5]), rung: 1),
        Row(name: "the top on a fast link", policy: .auto, input: input(current: 1, buffer: 20, mbps: [10, 10, 10]), rung: 2),
        Row(name: "not the buffer spent on a rung the link does not carry", policy: .auto,
            input: input(current: 1, buffer: 28, mbps: [3.2, 3.2, 3.2]), rung: 1),
        Row(name: "down before a stall", policy: .auto, input: input(current: 2, buffer: 3, mbps: [2, 2, 2]), rung: 0),
        Row(name: "no switch back within 20 s of one", policy: .auto,
            input: input(current: 1, buffer: 20, mbps: [1.8, 1.8, 1.8], lastSwitchAt: 90), memory: justWentUp, rung: 1),
        Row(name: "unless staying would stall", policy: .auto,
            input: input(current: 2, buffer: 3, mbps: [1.5, 1.5, 1.5], lastSwitchAt: 90), memory: justWentUp, rung: 0),
    ])
    func decides(_ row: Row) {
        var memory = row.memory
        #expect(row.policy.decide(row.input, memory: &memory).rung == row.rung)
    }

    @Test func bolaHoldsTheDownloadBackOnceItsBufferIsFull() {
        var memory = Self.steadyBola
        // At the bottom rung with the buffer far past what BOLA wants for it: wait.
        let decision = ABRPolicy.bola.decide(Self.input(current: 0, buffer: 29, mbps: [1.1, 1.1]), memory: &memory)
        #expect(decision.rung == 0 && decision.delay > 0)
    }

    @Test func bolaCountsTimeNotDownloadingAsPlaceholderBuffer() {
        var memory = Self.steadyBola
        var input = Self.input(current: 1, buffer: 10, mbps: [8, 8])
        input.now = 110  // ten seconds after the last download ended
        _ = ABRPolicy.bola.decide(input, memory: &memory)
        #expect(memory.bolaPlaceholder > 0)
        input.isStarved = true
        _ = ABRPolicy.bola.decide(input, memory: &memory)
        #expect(memory.bolaPlaceholder == 0, "a stall clears it")
    }
}

@Suite struct ThroughputEstimateTests {
    @Test func aSteadyLinkIsEstimatedAtItsRate() {
        let samples = ABRPolicyTests.samples([3, 3, 3, 3])
        #expect(abs((ThroughputEstimate.ewma(samples, halfLife: 3) ?? 0) - 3_000_000) < 1)
        #expect(abs(ThroughputEstimate.hlsjs(samples, initial: nil) - 3_000_000) < 1)
        #expect(abs((ThroughputEstimate.harmonicMean(samples, last: 3) ?? 0) - 3_000_000) < 1)
    }

    @Test func beforeAnyDownloadTheInitialEstimateElse500kbs() {
        #expect(ThroughputEstimate.hlsjs([], initial: 2_000_000) == 2_000_000)
        #expect(ThroughputEstimate.hlsjs([], initial: nil) == 500_000)
        #expect(ThroughputEstimate.ewma([], halfLife: 3) == nil)
    }

    @Test func theFastAverageFollowsAFallSoonerAndTheLowerIsTaken() {
        let samples = ABRPolicyTests.samples([8, 8, 8, 8, 2])
        let fast = ThroughputEstimate.ewma(samples, halfLife: 3)!, slow = ThroughputEstimate.ewma(samples, halfLife: 9)!
        #expect(fast < slow && ThroughputEstimate.hlsjs(samples, initial: nil) == fast)
    }

    @Test func theHarmonicMeanWeighsASlowDownloadByItsTime() {
        // 1 and 4 Mb/s: the harmonic mean is 1.6, not 2.5.
        #expect(abs((ThroughputEstimate.harmonicMean(ABRPolicyTests.samples([9, 1, 4]), last: 2) ?? 0) - 1_600_000) < 1)
    }
}

@Suite struct SegmentAbandonmentTests {
    static let sizes: [Double] = [500_000, 1_000_000, 2_000_000]

    @Test("Whether a slow segment is given up, and for which rung", arguments: [
        // (rung, elapsed, loaded, buffer, lower)
        (0, 2.0, 1000.0, 1.0, nil as Int?),  // nothing lower
        (2, 0.3, 1000, 1, nil),  // too soon to judge
        (2, 1.0, 1_000_000, 10, nil),  // 8 Mb/s: the rest comes in 1 s
        (2, 2.0, 250_000, 5, 0),  // 1 Mb/s: 14 s more, 5 s left; rung 1 would take 8 s, rung 0 4 s
        (2, 2.0, 500_000, 5, 1),  // 2 Mb/s: 6 s more, 5 s left; rung 1 takes 4 s
        (2, 2.0, 25_000, 5, 0),  // 100 kb/s: nothing fits, the lowest comes soonest
    ] as [(Int, Double, Double, Double, Int?)])
    func lowerRung(rung: Int, elapsed: Double, loaded: Double, buffer: Double, lower: Int?) {
        #expect(SegmentAbandonment.lowerRung(rung: rung, elapsed: elapsed, loaded: loaded, sizes: Self.sizes, buffer: buffer) == lower)
    }
}

@Suite struct ABRRunTests {
    /// Variants out of order, one of them audio only: the run's ladder is the other three, by bandwidth.
    static let variants = [
        HLSVariant(uri: "high", bandwidth: 4_000_000, codecs: ["avc1.640028", "mp4a.40.2"]),
        HLSVariant(uri: "audio", bandwidth: 64_000, codecs: ["mp4a.40.2"]),
        HLSVariant(uri: "low", bandwidth: 1_000_000, codecs: ["avc1.42e01e", "mp4a.40.2"]),
        HLSVariant(uri: "mid", bandwidth: 2_000_000, codecs: ["avc1.4d401f", "mp4a.40.2"]),
    ]

    @Test func theLadderIsTheVariantsThatCanFollowTheOnePlayingByBandwidth() throws {
        let run = try #require(ABRRun(policy: .auto, variants: Self.variants, playing: 2))
        #expect(run.rungs == [2, 3, 0])
        #expect(ABRRun(policy: .auto, variants: [Self.variants[0], Self.variants[1]], playing: 0) == nil, "one variant with a picture")
    }

    @Test func decisionsAreVariantIndicesFromTheDownloadsAndTheBuffer() throws {
        var run = try #require(ABRRun(policy: .throughput, variants: Self.variants, playing: 2))
        // 10 Mb/s downloads: up to the top, variant 0.
        run.noteDownload(bytes: 2_500_000, seconds: 2)
        #expect(run.nextVariant(playing: 2, level: BufferLevel(seconds: 20, maximum: 120, isStarved: false), segmentDuration: 4, segmentsLeft: 10) == 0)
        // 1.2 Mb/s: back down to the lowest, its buffer nearly gone (an emergency).
        for _ in 0..<8 { run.noteDownload(bytes: 300_000, seconds: 2) }
        #expect(run.nextVariant(playing: 0, level: BufferLevel(seconds: 1, maximum: 120, isStarved: false), segmentDuration: 4, segmentsLeft: 9) == 2)
    }
}

@Suite struct StartupEstimateTests {
    static let now = 1_000_000.0
    static let playlist = ThroughputSample(bytes: 500, seconds: 0.1, finishedAt: 1)  // 40 kb/s

    @Test("The first estimate: a recent saved one, else the playlist's download, else none", arguments: [
        (StartupEstimate.Saved(bitsPerSecond: 3e6, savedAt: now - 3600), playlist, 3e6, StartupEstimate.Origin.earlierSession),
        (StartupEstimate.Saved(bitsPerSecond: 3e6, savedAt: now - 86_400), playlist, 3e6, .earlierSession),  // a day old: still taken
        (StartupEstimate.Saved(bitsPerSecond: 3e6, savedAt: now - 86_401), playlist, 40_000, .playlist),  // older: not
        (StartupEstimate.Saved(bitsPerSecond: 3e6, savedAt: now + 60), playlist, 40_000, .playlist),  // from the future: the clock moved
        (StartupEstimate.Saved(bitsPerSecond: 0, savedAt: now), playlist, 40_000, .playlist),
        (StartupEstimate.Saved(bitsPerSecond: .infinity, savedAt: now), playlist, 40_000, .playlist),
        (nil, playlist, 40_000, .playlist),
        (nil, ThroughputSample(bytes: 500, seconds: 0.001, finishedAt: 1), 80_000, .playlist),  // too quick to time: 50 ms
        (nil, ThroughputSample(bytes: 0, seconds: 0.1, finishedAt: 1), nil, nil),
        (nil, nil, nil, nil),
    ] as [(StartupEstimate.Saved?, ThroughputSample?, Double?, StartupEstimate.Origin?)])
    func initial(saved: StartupEstimate.Saved?, playlist: ThroughputSample?, bitsPerSecond: Double?, origin: StartupEstimate.Origin?) {
        let estimate = StartupEstimate.initial(saved: saved, playlist: playlist, now: Self.now)
        #expect(estimate?.bitsPerSecond == bitsPerSecond)
        #expect(estimate?.origin == origin)
    }

    @Test("Saved when first measured, then only on a change of 10 % or more", arguments: [
        (2e6, nil, true), (2e6, 2e6, false), (2.19e6, 2e6, false), (2.2e6, 2e6, true), (1.8e6, 2e6, true), (1.81e6, 2e6, false),
        (0, nil, false), (.nan, nil, false), (.infinity, 2e6, false),
    ] as [(Double, Double?, Bool)])
    func shouldSave(estimate: Double, lastSaved: Double?, saves: Bool) {
        #expect(StartupEstimate.shouldSave(estimate, lastSaved: lastSaved) == saves)
    }
}

extension ABRRunTests {
    @Test("The first variant is the policy's first decision from the estimate", arguments: [
        (ABRPolicy.auto, 3e6, 3), (.auto, 1.3e6, 2), (.auto, 40_000, 2), (.auto, nil, 2),
        (.seed, 3e6, 3), (.throughput, 3e6, 3), (.bola, 1.3e6, 2),
        (.throughput, nil, 2),  // hls.js's default, 500 kb/s: the lowest
    ] as [(ABRPolicy, Double?, Int)])
    func startingVariant(policy: ABRPolicy, estimate: Double?, variant: Int) throws {
        var run = try #require(ABRRun(policy: policy, variants: Self.variants, playing: 2))
        #expect(run.startingVariant(estimate: estimate) == variant)
    }
}

extension ABRRunTests {
    @Test("A segment too slow to arrive is given up for a lower variant, sizes taken by bandwidth; a pinned policy never gives one up", arguments: [
        // 4 Mb/s variant 0, 2 MB expected, 100 kB in 1 s (800 kb/s), 4 s buffered: 1 MB at 2 Mb/s takes 10 s, 500 kB at 1 Mb/s 5 s.
        (ABRPolicy.auto, 0, 1.0, 100_000, 4.0, 2), // the rest takes 19 s: variant 2 (1 Mb/s) arrives soonest, if not in time
        (.auto, 0, 1.0, 100_000, 40.0, nil),  // 40 s buffered: in time
        (.auto, 0, 0.4, 10_000, 4.0, nil),  // judged only after 0.5 s
        (.auto, 2, 1.0, 10_000, 1.0, nil),  // the lowest: nothing lower
        (.fixed(0), 0, 1.0, 100_000, 4.0, nil),
    ] as [(ABRPolicy, Int, Double, Int, Double, Int?)])
    func abandonment(policy: ABRPolicy, playing: Int, elapsed: Double, loaded: Int, buffer: Double, lower: Int?) throws {
        let run = try #require(ABRRun(policy: policy, variants: Self.variants, playing: 2))
        let expected = 2_000_000.0 * Double(Self.variants[playing].bandwidth) / 4_000_000
        #expect(run.abandonment(playing: playing, elapsed: elapsed, loaded: loaded, expectedBytes: expected, buffer: buffer) == lower)
    }
}
