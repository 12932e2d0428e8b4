/// A ladder as the simulator downloads it: bit rates (ascending) and each segment's real size
/// at each rung.
package struct ABRLadder: Equatable, Sendable {
    package var name: String
    /// Bits per second, ascending.
    package var bitrates: [Double]
    package var segmentDuration: Double
    /// `sizes[segment][rung]`, bytes.
    package var sizes: [[Double]]

    package init(name: String, bitrates: [Double], segmentDuration: Double, sizes: [[Double]]) {
        self.name = name
        self.bitrates = bitrates
        self.segmentDuration = segmentDuration
        self.sizes = sizes
    }

    /// Pensieve's: 300, 750, 1200, 1850, 2850 and 4300 kb/s, 4 s segments, each segment of its
    /// rung's size exactly (its real sizes are not published with the traces).
    package static func pensieve(segments: Int = 48) -> ABRLadder {
        let bitrates: [Double] = [300_000, 750_000, 1_200_000, 1_850_000, 2_850_000, 4_300_000]
        return ABRLadder(name: "pensieve", bitrates: bitrates, segmentDuration: 4,
                         sizes: Array(repeating: bitrates.map { $0 / 8 * 4 }, count: segments))
    }
}

/// How a simulated session went, and what it is scored by.
package struct ABRSessionResult: Equatable, Sendable {
    /// The rung of each segment.
    package var rungs: [Int]
    /// QoE_lin (Pensieve): per segment, bit rate in Mb/s, less 4.3 × seconds stalled, less the
    /// change of bit rate in Mb/s; summed. Startup is not a stall (it is `startupDelay`).
    package var qoe: Double
    /// Mean bit rate of the segments played, Mb/s.
    package var averageBitrate: Double
    /// Seconds stalled after playback began, and their share of the session's time after startup.
    package var rebufferSeconds: Double
    package var rebufferRatio: Double
    package var switchesPerMinute: Double
    /// Seconds from the request for the playlist to the first frame.
    package var startupDelay: Double
}

/// Plays a ladder over a throughput trace, segment by segment, with the real policy code: each
/// download takes the trace's time for its bytes plus a round trip, and is given up for a lower
/// rung when it would arrive too late (SegmentAbandonment, for every policy); playback starts once
/// `startupBuffer` seconds are buffered, drains the buffer in real time, stalls when it runs
/// dry and goes on once a segment arrives; downloads wait while `maxBuffer` is full. The first
/// estimate is the master playlist's own download (`playlistBytes`), as the player's with no
/// estimate saved (StartupEstimate: a download under 50 ms counts as 50 ms).
package struct ABRSimulator: Sendable {
    package var maxBuffer = 30.0
    package var startupBuffer = 4.0
    /// Seconds each request waits before its first byte (Pensieve's link RTT).
    package var latency = 0.08
    /// The master playlist's size: Pensieve's ladder has none, and is given a few kilobytes.
    package var playlistBytes = 4096.0

    package init() {}

    package func run(_ policy: ABRPolicy, ladder: ABRLadder, trace: ThroughputTrace) -> ABRSessionResult {
        var clock = 0.0
        let playlistTime = latency + trace.seconds(toCarry: playlistBytes * 8, from: clock)
        clock += playlistTime
        var input = ABRInput(bitrates: ladder.bitrates, segmentDuration: ladder.segmentDuration, buffer: 0, maxBuffer: maxBuffer, now: clock)
        let playlist = ThroughputSample(bytes: playlistBytes, seconds: playlistTime, finishedAt: clock)
        input.initialEstimate = StartupEstimate.initial(saved: nil, playlist: playlist, now: 0)?.bitsPerSecond
        var memory = ABRMemory()
        var buffer = 0.0
        var playing = false
        var startup = 0.0
        var stalled = 0.0
        var rungs: [Int] = []
        let count = ladder.sizes.count
        for segment in 0..<count {
            input.now = clock
            input.buffer = buffer
            input.segmentsLeft = count - segment
            input.upcomingSizes = Array(ladder.sizes[segment..<min(count, segment + AutoPolicy.horizon)])
            let decision = policy.decide(input, memory: &memory)
            if decision.rung != input.current, input.current != nil { input.lastSwitchAt = clock }
            input.current = decision.rung
            input.isStarved = false
            // A wait BOLA asks for, and the wait for room in the buffer.
            let wait = max(decision.delay, playing ? buffer + ladder.segmentDuration - maxBuffer : 0)
            if wait > 0 {
                clock += wait
                if playing { buffer = max(0, buffer - wait) }
            }
            var rung = decision.rung
            while true {
                let bytes = ladder.sizes[segment][rung]
                var download = latency + trace.seconds(toCarry: bytes * 8, from: clock + latency)
                var given: (rung: Int, bytes: Double)?
                // Checked twice a second while it downloads, as a player's progress events come;
                // a rung the viewer pinned is kept.
                if playing, !policy.isFixed {
                    var elapsed = SegmentAbandonment.minimumElapsed
                    while elapsed < download, given == nil {
                        let loaded = max(0, trace.bits(from: clock + latency, to: clock + elapsed)) / 8
                        if let lower = SegmentAbandonment.lowerRung(rung: rung, elapsed: elapsed, loaded: loaded, sizes: ladder.sizes[segment],
                                                                    buffer: max(0, buffer - elapsed)) {
                            given = (lower, loaded)
                            download = elapsed
                        }
                        elapsed += 0.5
                    }
                }
                if playing {
                    if download > buffer {
                        stalled += download - buffer
                        input.isStarved = true
                    }
                    buffer = max(0, buffer - download)
                }
                clock += download
                input.samples.append(ThroughputSample(bytes: given?.bytes ?? bytes, seconds: download, finishedAt: clock))
                guard let given else { break }
                rung = given.rung
                input.lastSwitchAt = clock
                input.current = rung
            }
            buffer += ladder.segmentDuration
            rungs.append(rung)
            if !playing, buffer >= min(startupBuffer, Double(count) * ladder.segmentDuration) || segment == count - 1 {
                playing = true
                startup = clock
            }
        }
        return Self.score(rungs, ladder: ladder, stalled: stalled, startup: startup)
    }

    /// The session's figures from the rungs played and the time stalled.
    static func score(_ rungs: [Int], ladder: ABRLadder, stalled: Double, startup: Double) -> ABRSessionResult {
        let rates = rungs.map { ladder.bitrates[$0] / 1_000_000 }
        let changes = zip(rates.dropFirst(), rates).map { abs($0 - $1) }
        let switches = zip(rungs.dropFirst(), rungs).filter { $0 != $1 }.count
        let played = Double(rungs.count) * ladder.segmentDuration
        return ABRSessionResult(
            rungs: rungs, qoe: rates.reduce(0, +) - 4.3 * stalled - changes.reduce(0, +),
            averageBitrate: rates.isEmpty ? 0 : rates.reduce(0, +) / Double(rates.count),
            rebufferSeconds: stalled, rebufferRatio: played + stalled > 0 ? stalled / (played + stalled) : 0,
            switchesPerMinute: played > 0 ? Double(switches) / (played / 60) : 0, startupDelay: startup)
    }
}
