/// What a player that knew the whole trace could have played: a reference for the policies,
/// as Pensieve's "offline optimal". A beam search over the session, segment by segment, under
/// the simulator's rules (downloads over the trace with a round trip, the startup buffer, waits
/// for room in the buffer, stalls): of the sessions reaching each segment ending on each rung,
/// those no other beats on QoE_lin, buffer and time at once are kept, the best `beam` of them.
/// Its first segment is the policies' (from the same first estimate): a plan that knows the
/// trace would otherwise buy the top rung with a startup delay QoE_lin does not count. It is a
/// session that can be played, so the optimum is at least this good; the beam makes it near.
package enum ABROfflinePlan {
    /// A session so far.
    private struct Partial {
        var clock: Double
        var buffer: Double
        var isPlaying: Bool
        var startup: Double
        var stalled: Double
        var score: Double
        var rungs: [Int]
    }

    package static func run(ladder: ABRLadder, trace: ThroughputTrace, simulator: ABRSimulator, beam: Int = 24) -> ABRSessionResult {
        let playlistTime = simulator.latency + trace.seconds(toCarry: simulator.playlistBytes * 8, from: 0)
        var input = ABRInput(bitrates: ladder.bitrates, segmentDuration: ladder.segmentDuration, buffer: 0,
                             maxBuffer: simulator.maxBuffer, now: playlistTime)
        let playlist = ThroughputSample(bytes: simulator.playlistBytes, seconds: playlistTime, finishedAt: playlistTime)
        input.initialEstimate = StartupEstimate.initial(saved: nil, playlist: playlist, now: 0)?.bitsPerSecond
        var memory = ABRMemory()
        let first = ABRPolicy.auto.decide(input, memory: &memory).rung
        let count = ladder.sizes.count
        var layer = [Partial(clock: playlistTime, buffer: 0, isPlaying: false, startup: 0, stalled: 0, score: 0, rungs: [])]
        for segment in 0..<count {
            var next: [[Partial]] = Array(repeating: [], count: ladder.bitrates.count)
            for partial in layer {
                for rung in segment == 0 ? [first] : Array(ladder.bitrates.indices) {
                    next[rung].append(step(partial, rung: rung, segment: segment, ladder: ladder, trace: trace, simulator: simulator))
                }
            }
            layer = next.flatMap { keep($0, beam: beam) }
        }
        let best = layer.max { $0.score < $1.score }!
        return ABRSimulator.score(best.rungs, ladder: ladder, stalled: best.stalled, startup: best.startup)
    }

    /// `partial` with segment `segment` downloaded at `rung`, as the simulator plays it.
    private static func step(_ partial: Partial, rung: Int, segment: Int, ladder: ABRLadder, trace: ThroughputTrace,
                             simulator: ABRSimulator) -> Partial {
        var next = partial
        let wait = next.isPlaying ? max(0, next.buffer + ladder.segmentDuration - simulator.maxBuffer) : 0
        next.clock += wait
        if next.isPlaying { next.buffer = max(0, next.buffer - wait) }
        let download = simulator.latency + trace.seconds(toCarry: ladder.sizes[segment][rung] * 8, from: next.clock + simulator.latency)
        var stall = 0.0
        if next.isPlaying {
            stall = max(0, download - next.buffer)
            next.buffer = max(0, next.buffer - download)
        }
        next.clock += download
        next.buffer += ladder.segmentDuration
        next.stalled += stall
        let rate = ladder.bitrates[rung] / 1_000_000
        let change = next.rungs.last.map { abs(rate - ladder.bitrates[$0] / 1_000_000) } ?? 0
        next.score += rate - change - 4.3 * stall
        next.rungs.append(rung)
        if !next.isPlaying, next.buffer >= min(simulator.startupBuffer, Double(ladder.sizes.count) * ladder.segmentDuration)
            || segment == ladder.sizes.count - 1 {
            next.isPlaying = true
            next.startup = next.clock
        }
        return next
    }

    /// The sessions ending on one rung that no other beats on score, buffer and time at once;
    /// the best `beam` of those by score.
    private static func keep(_ sessions: [Partial], beam: Int) -> [Partial] {
        var kept: [Partial] = []
        for session in sessions.sorted(by: { $0.score > $1.score }) {
            let beaten = kept.contains { $0.buffer >= session.buffer - 1e-9 && $0.clock <= session.clock + 1e-9 }
            if !beaten { kept.append(session) }
            if kept.count == beam { break }
        }
        return kept
    }
}
