/// The plain text of a subtitle event as libavcodec's text decoders give it: an ASS dialogue
/// line, "ReadOrder,Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text", whatever the format
/// it came from (SRT, mov_text and WebVTT are converted to it).
package enum SubtitleText {
    /// The Text field with its override tags (`{\i1}`, `{\pos(…)}`) and drawings (`{\p1}…{\p0}`)
    /// removed and its escapes resolved: `\N` and `\n` break the line, `\h` is a hard space.
    package static func plain(fromASSEvent event: String) -> String {
        let fieldsBeforeText = event.hasPrefix("Dialogue:") ? 9 : 8
        var rest = Substring(event)
        for _ in 0..<fieldsBeforeText {
            guard let comma = rest.firstIndex(of: ",") else { return "" }
            rest = rest[rest.index(after: comma)...]
        }
        return plain(fromASSText: rest)
    }

    /// The Text field alone, made plain.
    package static func plain(fromASSText text: Substring) -> String {
        var result = ""
        var isDrawing = false
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "{", let close = text[index...].firstIndex(of: "}") {
                if let scale = drawingScale(in: text[text.index(after: index)..<close]) { isDrawing = scale > 0 }
                index = text.index(after: close)
                continue
            }
            if character == "\\", let next = text.index(index, offsetBy: 1, limitedBy: text.endIndex), next < text.endIndex {
                switch text[next] {
                case "N", "n":
                    if !isDrawing { result.append("\n") }
                    index = text.index(after: next)
                    continue
                case "h":
                    if !isDrawing { result.append("\u{00A0}") }
                    index = text.index(after: next)
                    continue
                default:
                    break
                }
            }
            if !isDrawing { result.append(character) }
            index = text.index(after: index)
        }
        return result.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingTrailingSpaces() }
            .drop { $0.isEmpty }.reversed().drop { $0.isEmpty }.reversed()
            .joined(separator: "\n")
    }

    /// The N of a `\pN` tag in an override block (drawing mode: 0 ends it), if there is one.
    private static func drawingScale(in block: Substring) -> Int? {
        var found: Int?
        var rest = block
        while let slash = rest.firstIndex(of: "\\") {
            rest = rest[rest.index(after: slash)...]
            guard rest.first == "p", let digit = rest.dropFirst().first, digit.isNumber else { continue }
            found = Int(String(rest.dropFirst().prefix { $0.isNumber }))
        }
        return found
    }
}

private extension Substring {
    func trimmingTrailingSpaces() -> Substring {
        var end = endIndex
        while end > startIndex, self[index(before: end)] == " " || self[index(before: end)] == "\t" { end = index(before: end) }
        return self[startIndex..<end]
    }
}
