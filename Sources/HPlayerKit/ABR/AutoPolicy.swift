/// Ours, the default. A look-ahead over the next segments, as RobustMPC (Yin et al. 2015): of
/// every plan of rungs for the next five segments, the one that scores best on the measure
/// viewers are scored by (QoE_lin: bit rate, less 4.3 per second stalled, less each change of bit
/// rate) is taken, predicted from
/// - the throughput: the harmonic mean of the last three downloads, divided by one plus a tenth
///   of the mean error of the last five predictions (a link that surprised us lately is trusted
///   less);
/// - the buffer, which drains while a segment downloads and refills by its duration;
/// - the rung playing: a change costs 1.5 times its QoE price, so a gain must outweigh it.
/// A plan that leaves less buffer than it found pays for the shortfall, and how much decides
/// which way it may go. Up, as for a stall: the rung it goes up to must be one the link
/// sustains, so a steady link gives a steady rung. Staying or going down, only below half the
/// maximum buffer (or what the plan's first segment leaves, where that is more) and at 1 per
/// second short: the buffer above half is there to ride out a dip
/// on the rung playing (as a player that knew the trace does, ABROfflinePlan), the half below it
/// is kept. And within 20 s of a switch, a switch the other way waits, unless staying would
/// stall: no oscillation on a link that hovers between two rungs.
package enum AutoPolicy {
    /// Segments looked ahead.
    static let horizon = 5
    /// Downloads the prediction is taken over, and predictions whose error is.
    static let predictionWindow = 3
    static let errorWindow = 5
    /// The prediction is divided by one plus this share of the mean error: a tenth, as a
    /// segment too slow to arrive in time is given up for a lower rung (SegmentAbandonment).
    static let errorWeight = 0.1
    /// QoE_lin's price of a second stalled, per Mb/s of bit rate.
    static let stallPenalty = 4.3
    /// A change of bit rate costs this many times its QoE_lin price in a plan's score.
    static let switchWeight = 1.5
    /// How a plan pays for leaving less buffer than it found: going up, all of it as stalled;
    /// staying or going down, what is under half the maximum buffer, at 1 per second.
    static let climbing = Shortfall(reserveShare: 1, price: stallPenalty)
    static let riding = Shortfall(reserveShare: 0.5, price: 1)

    struct Shortfall {
        /// The share of the maximum buffer under which less buffer than the plan found is paid for.
        let reserveShare: Double
        /// The price of each second short.
        let price: Double
    }
    /// Seconds after a switch within which a switch back waits, unless staying would stall.
    static let reversalHold = 20.0
    /// The first segment: the rung within this share of the initial estimate.
    static let startShare = 0.8

    package static func decide(_ input: ABRInput, memory: inout ABRMemory) -> ABRDecision {
        guard let current = input.current else {
            // No prediction to score: the initial estimate is a playlist's download or an
            // earlier session's, and its miss says nothing of how this network varies.
            memory.predictions.append(0)
            return ABRDecision(rung: ABRRules.startingRung(input, share: startShare))
        }
        let prediction = ThroughputEstimate.harmonicMean(input.samples, last: predictionWindow) ?? input.initialEstimate ?? 500_000
        let throughput = prediction / (1 + errorWeight * meanError(input.samples, predictions: memory.predictions))
        memory.predictions.append(prediction)
        let steps = min(horizon, input.segmentsLeft ?? horizon, horizonFitting(rungs: input.bitrates.count))
        guard steps > 0 else { return ABRDecision(rung: current) }
        let riding = bestFirstRung(input, current: current, throughput: throughput, steps: steps, shortfall: Self.riding)
        let best = riding <= current ? riding
            : min(riding, max(current, bestFirstRung(input, current: current, throughput: throughput, steps: steps, shortfall: climbing)))
        guard best != current else { return ABRDecision(rung: current) }
        let reverses = memory.lastSwitchWasUp.map { $0 != (best > current) } ?? false
        if reverses, let last = input.lastSwitchAt, input.now - last < reversalHold,
           !stalls(staying: current, input, throughput: throughput, steps: steps) {
            return ABRDecision(rung: current)
        }
        memory.lastSwitchWasUp = best > current
        return ABRDecision(rung: best)
    }

    /// The mean error of the predictions made for the last `errorWindow` downloads, relative to
    /// what they measured; 0 before any.
    static func meanError(_ samples: [ThroughputSample], predictions: [Double]) -> Double {
        let paired = min(samples.count, predictions.count)
        let errors = (max(0, paired - errorWindow)..<paired).filter { predictions[$0] > 0 }.map { index in
            abs(predictions[index] - samples[index].bitsPerSecond) / samples[index].bitsPerSecond
        }
        return errors.isEmpty ? 0 : errors.reduce(0, +) / Double(errors.count)
    }

    /// Plans grow as rungs^steps: fewer steps for a tall ladder.
    static func horizonFitting(rungs: Int) -> Int {
        var steps = horizon
        while steps > 1, (0..<steps).reduce(1, { value, _ in value * rungs }) > 20_000 { steps -= 1 }
        return steps
    }

    /// The first rung of the plan of `steps` segments with the best score; the rung playing
    /// wins a tie.
    static func bestFirstRung(_ input: ABRInput, current: Int, throughput: Double, steps: Int, shortfall: Shortfall) -> Int {
        let rungs = input.bitrates.count
        let target = min(input.buffer, shortfall.reserveShare * input.maxBuffer)
        var plan = [Int](repeating: 0, count: steps)
        var best = (score: -Double.infinity, first: current)
        while true {
            let score = self.score(plan, input, current: current, throughput: throughput, target: target, price: shortfall.price)
            if score > best.score + 1e-9 || (abs(score - best.score) <= 1e-9 && plan[0] == current) {
                best = (score, plan[0])
            }
            // The next plan, counting in base `rungs`.
            var position = steps - 1
            while position >= 0 {
                plan[position] += 1
                if plan[position] < rungs { break }
                plan[position] = 0
                position -= 1
            }
            if position < 0 { return best.first }
        }
    }

    /// QoE_lin over the plan as predicted, with changes weighed by `switchWeight`, less the
    /// buffer's shortfall at the end, at `price` a second, under `target` or under what the
    /// plan's first segment leaves, whichever is more: the rest of the plan must not live on
    /// buffer the first segment saved. Else "low now, high later", saving buffer to spend it past
    /// the horizon, would win every decision, and the rise be put off at each.
    static func score(_ plan: [Int], _ input: ABRInput, current: Int, throughput: Double, target: Double, price: Double) -> Double {
        var buffer = input.buffer
        var target = target
        var last = input.bitrates[current] / 1_000_000
        var score = 0.0
        for (ahead, rung) in plan.enumerated() {
            defer { if ahead == 0 { target = max(target, buffer) } }
            let rate = input.bitrates[rung] / 1_000_000
            // The buffer drains at the playback rate while the segment downloads.
            let drained = input.size(ahead: ahead, rung: rung) * 8 / throughput * input.playbackRate
            let stall = max(0, drained - buffer) / input.playbackRate
            buffer = min(max(0, buffer - drained) + input.segmentDuration, input.maxBuffer)
            score += rate - stallPenalty * stall - switchWeight * abs(rate - last)
            last = rate
        }
        return score - price * max(0, target - buffer)
    }

    /// Whether staying at `current` for `steps` segments is predicted to stall.
    static func stalls(staying current: Int, _ input: ABRInput, throughput: Double, steps: Int) -> Bool {
        var buffer = input.buffer
        for ahead in 0..<steps {
            let drained = input.size(ahead: ahead, rung: current) * 8 / throughput * input.playbackRate
            if drained > buffer { return true }
            buffer = min(buffer - drained + input.segmentDuration, input.maxBuffer)
        }
        return false
    }
}
