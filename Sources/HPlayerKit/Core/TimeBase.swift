/// No timestamp: the value FFmpeg's AV_NOPTS_VALUE stands for (INT64_MIN), which a packet or a
/// frame carries when it has no time.
let noTimestamp = Int64.min

/// Converts between a stream's integer timestamps and seconds.
struct TimeBase: Equatable, Sendable {
    let num: Int32
    let den: Int32

    init(num: Int32, den: Int32) {
        self.num = num
        self.den = den
    }

    /// Seconds for `ticks`, or nil for `noTimestamp`.
    func seconds(_ ticks: Int64) -> Double? {
        ticks == noTimestamp ? nil : Double(ticks) * Double(num) / Double(den)
    }

    func ticks(_ seconds: Double) -> Int64 {
        Int64(saturating: seconds * Double(den) / Double(num))
    }
}
