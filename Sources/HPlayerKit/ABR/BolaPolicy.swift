import Glibc

/// BOLA-BASIC (Spiteri, Urgaonkar, Sitaraman, 2016) as dash.js runs it: each rung's utility is
/// the log of its bit rate; the rung maximizing (V·(utility + γp) − buffer) / bit rate is taken,
/// the buffer counted with a placeholder that stands for time spent not downloading (startup,
/// waits); a step up past what the throughput sustains stops at the higher of that and the rung
/// playing (BOLA-O); and a download is held back when the buffer, placeholder included, is above
/// the level the chosen rung wants. The first segment comes from the throughput, with the
/// placeholder set so that the buffer rule agrees with it.
package enum BolaPolicy {
    /// dash.js's MINIMUM_BUFFER_S, MINIMUM_BUFFER_PER_BITRATE_LEVEL_S and stable buffer time.
    static let minimumBuffer = 10.0
    static let bufferPerRung = 2.0
    static let stableBuffer = 12.0
    /// dash.js's throughput safety factor.
    static let safety = 0.9

    /// The utilities (log of the bit rate, the lowest at 1), γp and V for a ladder.
    struct Parameters {
        var utilities: [Double]
        var gp: Double
        var vp: Double

        init(bitrates: [Double]) {
            let logs = bitrates.map { log($0) }
            utilities = logs.map { $0 - logs[0] + 1 }
            let bufferTime = max(BolaPolicy.stableBuffer, BolaPolicy.minimumBuffer + BolaPolicy.bufferPerRung * Double(bitrates.count))
            gp = (utilities[utilities.count - 1] - 1) / (bufferTime / BolaPolicy.minimumBuffer - 1)
            vp = BolaPolicy.minimumBuffer / gp
        }

        /// The rung BOLA takes at this buffer level.
        func rung(buffer: Double, bitrates: [Double]) -> Int {
            var best = 0
            var bestScore = -Double.infinity
            for rung in bitrates.indices {
                let score = (vp * (utilities[rung] + gp) - buffer) / bitrates[rung]
                if score >= bestScore {
                    bestScore = score
                    best = rung
                }
            }
            return best
        }

        /// The buffer level above which BOLA would take a rung lower than `rung`.
        func minimumLevel(for rung: Int, bitrates: [Double]) -> Double {
            var level = 0.0
            for lower in stride(from: rung - 1, through: 0, by: -1) where utilities[lower] < utilities[rung] {
                let crossing = (bitrates[rung] * utilities[lower] - bitrates[lower] * utilities[rung]) / (bitrates[rung] - bitrates[lower])
                level = max(level, vp * (gp + crossing))
            }
            return level
        }

        /// The buffer level past which BOLA would download nothing at `rung`.
        func maximumLevel(for rung: Int) -> Double { vp * (utilities[rung] + gp) }
    }

    package static func decide(_ input: ABRInput, memory: inout ABRMemory) -> ABRDecision {
        let parameters = Parameters(bitrates: input.bitrates)
        let throughput = ThroughputEstimate.hlsjs(input.samples, initial: input.initialEstimate) * safety
        let forThroughput = input.highestRung(within: throughput)
        if memory.bolaIsStarting {
            // The throughput's rung, the placeholder raised to where BOLA agrees; steady from
            // the decision after a segment's worth is buffered.
            memory.bolaPlaceholder = max(0, parameters.minimumLevel(for: forThroughput, bitrates: input.bitrates) - input.buffer)
            memory.bolaIsStarting = input.current == nil || input.buffer < input.segmentDuration
            return ABRDecision(rung: forThroughput)
        }
        let current = input.current ?? forThroughput
        if input.isStarved {
            memory.bolaPlaceholder = 0
        } else if let finished = input.samples.last?.finishedAt {
            // Time since the last download spent waiting, not downloading, counts as buffer.
            memory.bolaPlaceholder += max(0, input.now - finished)
        }
        let level = input.buffer + memory.bolaPlaceholder
        var rung = parameters.rung(buffer: level, bitrates: input.bitrates)
        if rung > current, rung > forThroughput { rung = max(forThroughput, current) }
        var delay = max(0, level - parameters.maximumLevel(for: rung))
        if delay <= memory.bolaPlaceholder {
            memory.bolaPlaceholder -= delay
            delay = 0
        } else {
            delay -= memory.bolaPlaceholder
            memory.bolaPlaceholder = 0
        }
        return ABRDecision(rung: rung, delay: delay)
    }
}
