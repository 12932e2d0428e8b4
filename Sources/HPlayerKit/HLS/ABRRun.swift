/// How full the player's buffer is, as the bitrate policy sees it.
package struct BufferLevel: Equatable, Sendable {
    /// Seconds of media read ahead of the playhead.
    package var seconds: Double
    /// The most the player reads ahead, seconds.
    package var maximum: Double
    /// Playback is waiting for data (starting, or run dry).
    package var isStarved: Bool

    package init(seconds: Double, maximum: Double, isStarved: Bool) {
        self.seconds = seconds
        self.maximum = maximum
        self.isStarved = isStarved
    }
}

/// A bitrate policy's run over one HLS stream (`--hls-bitrate=auto`): the ladder it moves on
/// (the variants that can follow the one first played, by bandwidth), the downloads it learns
/// from, and its memory. The HLS client's read thread's own.
struct ABRRun {
    let policy: ABRPolicy
    /// Variant indices, lowest bandwidth first: rung i is variant `rungs[i]`.
    private(set) var rungs: [Int]
    private var bitrates: [Double]
    private let origin = MonotonicClock.now()
    private var memory = ABRMemory()
    private var samples: [ThroughputSample] = []
    private var lastSwitchAt: Double?
    private var initialEstimate: Double?

    /// nil when fewer than two variants can follow `playing`: nothing to choose.
    init?(policy: ABRPolicy, variants: [HLSVariant], renditions: [HLSRendition] = [], playing: Int) {
        let rungs = HLSBitrate.interchangeable(with: playing, among: variants, renditions: renditions)
        guard rungs.count > 1 else { return nil }
        self.policy = policy
        self.rungs = rungs
        bitrates = rungs.map { Double(variants[$0].bandwidth) }
    }

    /// A segment's download: its bytes, and the seconds spent waiting for them.
    mutating func noteDownload(bytes: Int64, seconds: Double) {
        guard bytes > 0 else { return }
        samples.append(ThroughputSample(bytes: Double(bytes), seconds: seconds, finishedAt: MonotonicClock.now() - origin))
        // A policy learns from the last few; a long stream keeps no more than that.
        if samples.count > 64 { samples.removeFirst(samples.count - 64) }
    }

    /// The first segment's variant, the policy's first decision: from `estimate` (bits per
    /// second, StartupEstimate's), or the policy's own default without one. Segment durations
    /// are not known yet (no media playlist is read): no policy's first decision uses them.
    mutating func startingVariant(estimate: Double?) -> Int {
        var input = ABRInput(bitrates: bitrates, segmentDuration: 0, buffer: 0, maxBuffer: 0, now: MonotonicClock.now() - origin)
        input.initialEstimate = estimate
        initialEstimate = estimate
        return rungs[policy.decide(input, memory: &memory).rung]
    }

    /// What the downloads so far say the throughput is (hls.js's estimate), bits per second;
    /// nil before the first.
    var estimate: Double? {
        samples.isEmpty ? nil : ThroughputEstimate.hlsjs(samples, initial: nil)
    }

    /// The variant of the next segment, `playing` being the last one's. A wait BOLA asks for is
    /// not kept: the player's read-ahead paces the downloads.
    mutating func nextVariant(playing: Int, level: BufferLevel, segmentDuration: Double, segmentsLeft: Int?) -> Int {
        var input = ABRInput(bitrates: bitrates, segmentDuration: segmentDuration, buffer: level.seconds,
                             maxBuffer: level.maximum, now: MonotonicClock.now() - origin)
        input.current = rungs.firstIndex(of: playing)
        input.samples = samples
        input.segmentsLeft = segmentsLeft
        input.lastSwitchAt = lastSwitchAt
        input.isStarved = level.isStarved
        input.initialEstimate = initialEstimate
        let rung = policy.decide(input, memory: &memory).rung
        return rungs[rung]
    }

    /// The variant to fetch the segment downloading at `playing` from instead, when at the rate
    /// it has come so far it would arrive after the buffer ran dry (SegmentAbandonment); nil to
    /// go on. The other variants' sizes of the segment are taken in proportion to their bandwidth.
    /// - Parameters:
    ///   - elapsed: seconds the download has waited on the network.
    ///   - expectedBytes: the segment's whole size at `playing`.
    ///   - buffer: seconds of media buffered now.
    func abandonment(playing: Int, elapsed: Double, loaded: Int, expectedBytes: Double, buffer: Double) -> Int? {
        guard !policy.isFixed, let rung = rungs.firstIndex(of: playing) else { return nil }
        let sizes = bitrates.map { expectedBytes * $0 / bitrates[rung] }
        return SegmentAbandonment.lowerRung(rung: rung, elapsed: elapsed, loaded: Double(loaded), sizes: sizes, buffer: buffer).map { rungs[$0] }
    }

    /// Takes `variant` off the ladder (its segments cannot follow the others'); the last rung stays.
    mutating func exclude(_ variant: Int) {
        guard rungs.count > 1, let rung = rungs.firstIndex(of: variant) else { return }
        rungs.remove(at: rung)
        bitrates.remove(at: rung)
    }

    /// The stream moved to another variant.
    mutating func didSwitch() { lastSwitchAt = MonotonicClock.now() - origin }
}
