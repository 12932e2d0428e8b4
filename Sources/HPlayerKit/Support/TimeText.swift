/// Times as a person reads them.
public enum TimeText {
    /// `HH:MM:SS`, as mpv's status line writes them.
    public static func clock(_ seconds: Double) -> String {
        let whole = seconds.isFinite ? Int(max(0, seconds)) : 0
        return pad(whole / 3600) + ":" + pad(whole / 60 % 60) + ":" + pad(whole % 60)
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
