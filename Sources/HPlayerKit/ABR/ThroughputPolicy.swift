/// hls.js's rule: the lower of two exponentially weighted throughput averages (half-lives 3 s
/// and 9 s), of which a rung at or below the one playing may take 0.95, a higher one 0.7.
package enum ThroughputPolicy {
    package static let stayFactor = 0.95
    package static let upFactor = 0.7

    package static func decide(_ input: ABRInput) -> ABRDecision {
        let estimate = ThroughputEstimate.hlsjs(input.samples, initial: input.initialEstimate)
        let current = input.current ?? 0
        let rung = input.bitrates.indices.last { rung in
            input.bitrates[rung] <= estimate * (rung <= current ? stayFactor : upFactor)
        } ?? 0
        return ABRDecision(rung: rung)
    }
}
