/// The cues of a TTML document (TTML1/IMSC text profile, as DASH's `stpp` samples carry them):
/// each `<p>` with its timing resolved down the tree, its text made plain (`<br/>` a line
/// break, `<span>` text kept, styling and regions left out). Pure.
package enum TTMLDocument {
    /// The document's cues, times in seconds on the timeline its time expressions count on (in
    /// MP4, the track's: ISO/IEC 14496-30 §5.3). A `<p>` with no end lasts until `until`.
    package static func cues(in bytes: [UInt8], until: Double = .infinity) throws(XMLTreeError) -> [SubtitleCue] {
        let root = try XMLTree.parse(bytes)
        guard root.name == "tt" else { throw XMLTreeError(reason: "not a TTML document (<\(root.name)>, not <tt>)") }
        let rates = TTMLTimeRates(root)
        var cues: [SubtitleCue] = []
        if let body = root.element("body") { collect(body, begin: 0, end: .infinity, rates: rates, into: &cues) }
        return cues.filter { $0.start < until }
            .map { $0.end == .infinity ? SubtitleCue(start: $0.start, end: until, text: $0.text) : $0 }
            .sorted { $0.start < $1.start }
    }

    /// Resolves `element`'s interval within its parent's (TTML's default `par` time container:
    /// begin from the parent's begin, the end at most the parent's) and collects its paragraphs.
    private static func collect(_ element: XMLElement, begin parentBegin: Double, end parentEnd: Double, rates: TTMLTimeRates,
                                into cues: inout [SubtitleCue]) {
        let begin = parentBegin + (element["begin"].flatMap(rates.seconds) ?? 0)
        var end = parentEnd
        if let own = element["end"].flatMap(rates.seconds) { end = min(end, parentBegin + own) }
        if let duration = element["dur"].flatMap(rates.seconds) { end = min(end, begin + duration) }
        guard begin < end else { return }
        guard element.name == "p" else {
            for child in element.children { collect(child, begin: begin, end: end, rates: rates, into: &cues) }
            return
        }
        let text = plain(lines(of: element))
        if !text.isEmpty { cues.append(SubtitleCue(start: begin, end: end, text: text)) }
    }

    /// The text of a paragraph or span in order, `<br/>` as "\n"; metadata left out.
    private static func lines(of element: XMLElement) -> String {
        var result = element.leadingText
        for child in element.children {
            switch child.name {
            case "br": result += String(lineBreak)
            case "span": result += lines(of: child)
            default: break
            }
            result += child.tail
        }
        return result
    }

    /// Stands for a `<br/>` until white space is collapsed: the text's own line ends are white space.
    private static let lineBreak: Character = "\u{2028}"

    /// XML's default white space handling: runs of white space one space, none at a line's
    /// ends; `<br/>`s then line breaks.
    static func plain(_ text: String) -> String {
        text.split(separator: lineBreak, omittingEmptySubsequences: false).map { line in
            line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }).joined(separator: " ")
        }
        .drop { $0.isEmpty }.reversed().drop { $0.isEmpty }.reversed().joined(separator: "\n")
    }
}

/// The rates TTML time expressions count frames and ticks in (TTML1 §6.2: `ttp:frameRate`,
/// `ttp:frameRateMultiplier`, `ttp:subFrameRate`, `ttp:tickRate`), and the expressions' values.
struct TTMLTimeRates: Equatable {
    var frameRate = 30.0
    var subFrameRate = 1.0
    var tickRate = 1.0

    init(frameRate: Double = 30, subFrameRate: Double = 1, tickRate: Double = 1) {
        self.frameRate = frameRate
        self.subFrameRate = subFrameRate
        self.tickRate = tickRate
    }

    init(_ root: XMLElement) {
        let frames = root["frameRate"].flatMap(Double.init).flatMap { $0 > 0 ? $0 : nil }
        if let frames { frameRate = frames }
        if let multiplier = root["frameRateMultiplier"] {
            let parts = multiplier.split(separator: " ").compactMap { Double($0) }
            if parts.count == 2, parts[0] > 0, parts[1] > 0 { frameRate *= parts[0] / parts[1] }
        }
        if let sub = root["subFrameRate"].flatMap(Double.init), sub > 0 { subFrameRate = sub }
        // With no tickRate, ticks are sub-frames when a frame rate is given, else seconds.
        tickRate = root["tickRate"].flatMap(Double.init).flatMap { $0 > 0 ? $0 : nil } ?? (frames != nil ? frameRate * subFrameRate : 1)
    }

    /// Seconds of a time expression: clock time ("00:00:01.5", "00:00:01:12", "00:00:01:12.1")
    /// or offset time ("1.5s", "1500ms", "2m", "1h", "12f", "15000000t"); nil for anything else.
    func seconds(_ expression: String) -> Double? {
        let text = Substring(expression).trimmingWhitespace()
        if text.contains(":") { return clock(text) }
        let metrics: [(String, Double)] = [("ms", 0.001), ("h", 3600), ("m", 60), ("s", 1), ("f", 1 / frameRate), ("t", 1 / tickRate)]
        for (metric, scale) in metrics where text.hasSuffix(metric) {
            guard let count = Self.count(text.dropLast(metric.count)) else { return nil }
            return count * scale
        }
        return nil
    }

    private func clock(_ text: Substring) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3 || parts.count == 4, parts[0].count >= 2, parts[1].count == 2,
              let hours = Self.count(parts[0]), let minutes = Self.count(parts[1]), minutes < 60 else { return nil }
        var seconds = hours * 3600 + minutes * 60
        if parts.count == 3 {
            guard parts[2].prefix(while: { $0 != "." }).count == 2, let value = Self.count(parts[2]), value < 61 else { return nil }
            return seconds + value
        }
        guard parts[2].count == 2, let whole = Self.count(parts[2]), whole < 61 else { return nil }
        seconds += whole
        let frameParts = parts[3].split(separator: ".", omittingEmptySubsequences: false)
        guard frameParts.count <= 2, frameParts[0].count >= 2, let frames = Self.count(frameParts[0]), frames.rounded() == frames else { return nil }
        var frameCount = frames
        if frameParts.count == 2 {
            guard let sub = Self.count(frameParts[1]), sub.rounded() == sub else { return nil }
            frameCount += sub / subFrameRate
        }
        return seconds + frameCount / frameRate
    }

    /// A non-negative decimal number: digits, optionally a point and more digits.
    private static func count(_ text: Substring) -> Double? {
        guard !text.isEmpty, text.first != ".", text.last != ".",
              text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), text.filter({ $0 == "." }).count <= 1 else { return nil }
        return Double(text)
    }
}
