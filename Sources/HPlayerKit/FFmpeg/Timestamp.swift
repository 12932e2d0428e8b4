import CFFmpeg
import CHPlayerShim

/// AV_NOPTS_VALUE, which Swift cannot import.
let noTimestamp = hp_nopts_value()

extension AVRational {
    var seconds: Double { den == 0 ? 0 : Double(num) / Double(den) }
}

/// Converts between a stream's integer timestamps and seconds.
struct TimeBase: Equatable, Sendable {
    let num: Int32
    let den: Int32

    init(_ rational: AVRational) {
        num = rational.num
        den = rational.den
    }

    var rational: AVRational { AVRational(num: num, den: den) }

    /// Seconds for `ticks`, or nil for AV_NOPTS_VALUE.
    func seconds(_ ticks: Int64) -> Double? {
        ticks == noTimestamp ? nil : Double(ticks) * Double(num) / Double(den)
    }

    func ticks(_ seconds: Double) -> Int64 {
        Int64(saturating: seconds * Double(den) / Double(num))
    }
}
