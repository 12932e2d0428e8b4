/// A network's throughput over time, as the traces in ../shared/traces give it: lines of
/// "<seconds>\t<Mbit/s>", each rate holding until the next line's time. Past its last line the
/// trace starts over, as Pensieve's simulator has it.
package struct ThroughputTrace: Equatable, Sendable {
    package var name: String
    /// Seconds from the start, ascending, the first 0; and the bits per second from each on.
    package private(set) var times: [Double]
    package private(set) var rates: [Double]
    /// The trace's length: its last sample's time plus the median interval, which its rate holds.
    package let duration: Double

    /// Parses a trace; nil when it has no sample, or a line is not two numbers.
    package init?(name: String, text: String) {
        var times: [Double] = []
        var rates: [Double] = []
        for line in text.split(whereSeparator: \.isNewline) where !line.allSatisfy(\.isWhitespace) {
            let fields = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
            guard fields.count == 2, let time = Double(fields[0]), let mbps = Double(fields[1]), mbps >= 0,
                  time >= (times.last ?? -.infinity) else { return nil }
            times.append(time)
            rates.append(mbps * 1_000_000)
        }
        guard let first = times.first else { return nil }
        self.init(name: name, times: times.map { $0 - first }, rates: rates)
    }

    package init(name: String, times: [Double], rates: [Double]) {
        self.name = name
        self.times = times
        self.rates = rates
        if times.count > 1 {
            let intervals = zip(times.dropFirst(), times).map { $0 - $1 }.sorted()
            duration = times[times.count - 1] + max(intervals[intervals.count / 2], 0.001)
        } else {
            duration = 1
        }
    }

    /// The rate at `time` seconds, the trace repeating.
    package func rate(at time: Double) -> Double {
        rates[sample(at: time.truncatingRemainder(dividingBy: duration))]
    }

    /// The index of the last sample at or before `position` (within the trace's length); 0 before the first.
    private func sample(at position: Double) -> Int {
        var low = 0, high = times.count  // the answer is in low..<high
        while high - low > 1 {
            let middle = (low + high) / 2
            if times[middle] <= position { low = middle } else { high = middle }
        }
        return low
    }

    /// Bits carried from `start` to `end`.
    package func bits(from start: Double, to end: Double) -> Double {
        var carried = 0.0
        var time = start
        let length = duration
        while time < end {
            let position = time.truncatingRemainder(dividingBy: length)
            let index = sample(at: position)
            let next = index + 1 < times.count ? times[index + 1] : length
            let span = min(max(next - position, 1e-9), end - time)
            carried += rates[index] * span
            time += span
        }
        return carried
    }

    /// Seconds to carry `bits` from `start` on.
    package func seconds(toCarry bits: Double, from start: Double) -> Double {
        var left = bits
        var time = start
        let length = duration
        // Steps through the samples; a trace of zero throughput throughout never delivers.
        guard rates.contains(where: { $0 > 0 }) else { return .infinity }
        while true {
            let position = time.truncatingRemainder(dividingBy: length)
            let index = sample(at: position)
            let next = index + 1 < times.count ? times[index + 1] : length
            let span = max(next - position, 1e-9)
            let carried = rates[index] * span
            if carried >= left { return time + left / max(rates[index], 1e-9) - start }
            left -= carried
            time += span
        }
    }
}
