/// Numbers with a fixed count of decimals, without Foundation's formatters: "1.10", "25.000".
package enum DecimalText {
    package static func fixed(_ value: Double, places: Int) -> String {
        var scale = 1
        for _ in 0..<places { scale *= 10 }
        let scaled = Int(saturating: abs(value) * Double(scale))
        let fraction = String(scaled % scale)
        let digits = places > 0 ? "." + String(repeating: "0", count: places - fraction.count) + fraction : ""
        return (value < 0 && scaled > 0 ? "-" : "") + "\(scaled / scale)" + digits
    }
}
