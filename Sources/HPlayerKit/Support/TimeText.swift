/// Times as a person reads them.
public enum TimeText {
    /// `HH:MM:SS`, as mpv's status line writes them.
    public static func clock(_ seconds: Double) -> String {
        let whole = Int(saturating: max(0, seconds), rounding: .towardZero)
        return pad(whole / 3600) + ":" + pad(whole / 60 % 60) + ":" + pad(whole % 60)
    }

    /// `HH:MM:SS.mmm`, to the millisecond; `separator` takes the colons' place (file names on
    /// some file systems cannot hold them).
    public static func precise(_ seconds: Double, separator: String = ":") -> String {
        let milliseconds = Int(saturating: max(0, seconds) * 1000)
        let whole = milliseconds / 1000
        let fraction = String(milliseconds % 1000)
        return [pad(whole / 3600), pad(whole / 60 % 60), pad(whole % 60)].joined(separator: separator)
            + "." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
