/// Where playback starts, in the forms mpv's `--start` takes: seconds (`90`, `12.5`),
/// `[[hh:]mm:]ss` (`1:30`, `01:02:03.5`), either before the end when negative (`-5`), or a
/// percentage of the duration (`25%`).
public enum StartPosition: Equatable, Sendable {
    /// Seconds from the start.
    case seconds(Double)
    /// A fraction of the duration, 0...1.
    case fraction(Double)
    /// Seconds before the end.
    case beforeEnd(Double)

    /// Reads one of the forms above; nil for anything else (a percentage past 100, `1:75`).
    public init?(_ text: String) {
        if text.hasPrefix("-") {
            guard case .seconds(let seconds)? = StartPosition(String(text.dropFirst())) else { return nil }
            self = .beforeEnd(seconds)
            return
        }
        if text.hasSuffix("%") {
            guard let percent = Double(text.dropLast()), percent >= 0, percent <= 100 else { return nil }
            self = .fraction(percent / 100)
            return
        }
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(fields.count) else { return nil }
        var seconds = 0.0
        for (index, field) in fields.enumerated() {
            guard let value = Double(field), value >= 0, value.isFinite else { return nil }
            // Hours and minutes are whole; minutes and seconds after a larger unit are under 60.
            if index < fields.count - 1, value != value.rounded(.down) { return nil }
            if index > 0, value >= 60 { return nil }
            seconds = seconds * 60 + value
        }
        self = .seconds(seconds)
    }

    /// Seconds from the start; nil for a percentage of, or a time before the end of, an unknown
    /// duration (a live stream).
    public func seconds(duration: Double?) -> Double? {
        switch self {
        case .seconds(let seconds): return seconds
        case .fraction(let fraction): return duration.map { fraction * $0 }
        case .beforeEnd(let seconds): return duration.map { max(0, $0 - seconds) }
        }
    }
}
