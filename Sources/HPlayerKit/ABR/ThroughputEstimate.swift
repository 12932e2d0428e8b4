import Glibc

/// Throughput estimates from the downloads so far: pure folds over the samples.
package enum ThroughputEstimate {
    /// hls.js's exponentially weighted average: each sample weighs its download time, and
    /// counts half after `halfLife` seconds of later downloads; corrected for the weight still
    /// missing at the start. nil without samples.
    package static func ewma(_ samples: [ThroughputSample], halfLife: Double) -> Double? {
        guard !samples.isEmpty else { return nil }
        let alpha = exp(log(0.5) / halfLife)
        var estimate = 0.0
        var totalWeight = 0.0
        for sample in samples {
            let weight = max(sample.seconds, 0.05)
            let kept = pow(alpha, weight)
            estimate = sample.bitsPerSecond * (1 - kept) + kept * estimate
            totalWeight += weight
        }
        let zeroFactor = 1 - pow(alpha, totalWeight)
        return zeroFactor > 0 ? estimate / zeroFactor : estimate
    }

    /// hls.js's for VOD: the lower of a fast (3 s) and a slow (9 s) average; before any
    /// download, `initial`, else 500 kb/s (hls.js's default).
    package static func hlsjs(_ samples: [ThroughputSample], initial: Double?) -> Double {
        guard let fast = ewma(samples, halfLife: 3), let slow = ewma(samples, halfLife: 9) else { return initial ?? 500_000 }
        return min(fast, slow)
    }

    /// The harmonic mean of the last `count` downloads' rates: one slow download weighs as it
    /// should (the time it takes). nil without samples.
    package static func harmonicMean(_ samples: [ThroughputSample], last count: Int) -> Double? {
        let recent = samples.suffix(count)
        guard !recent.isEmpty else { return nil }
        return Double(recent.count) / recent.reduce(0) { $0 + 1 / $1.bitsPerSecond }
    }
}
