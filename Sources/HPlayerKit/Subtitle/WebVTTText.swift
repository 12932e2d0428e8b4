/// WebVTT as it is carried: the cue text's markup made plain, and the cues of a sample of
/// WebVTT in MP4 (`wvtt`, ISO/IEC 14496-30 §7).
package enum WebVTTText {
    /// A cue's text with its tags (`<i>`, `<c.yellow>`, `<v Anna>`, `<00:01.500>`) taken out and
    /// its character references resolved; blank lines at either end dropped.
    package static func plain(fromCueText text: Substring) -> String {
        var result = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "<", let close = text[index...].firstIndex(of: ">") {
                index = text.index(after: close)
                continue
            }
            if character == "&", let (resolved, end) = reference(in: text[index...]) {
                result.append(resolved)
                index = end
                continue
            }
            result.append(character)
            index = text.index(after: index)
        }
        return result.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            .drop { $0.allSatisfy(\.isWhitespace) }.reversed().drop { $0.allSatisfy(\.isWhitespace) }.reversed()
            .joined(separator: "\n")
    }

    private static let references: [Substring: Character] = [
        "&amp;": "&", "&lt;": "<", "&gt;": ">", "&nbsp;": "\u{00A0}", "&lrm;": "\u{200E}", "&rlm;": "\u{200F}",
        "&quot;": "\"", "&apos;": "'",
    ]

    /// The character a reference at the start of `text` stands for, and where it ends.
    private static func reference(in text: Substring) -> (Character, Substring.Index)? {
        guard let semicolon = text.prefix(8).firstIndex(of: ";") else { return nil }
        let end = text.index(after: semicolon)
        let name = text[..<end]
        if let character = references[name] { return (character, end) }
        if name.hasPrefix("&#") {
            let digits = name.dropFirst(2).dropLast()
            let value = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
            if let value, let scalar = Unicode.Scalar(value) { return (Character(scalar), end) }
        }
        return nil
    }

    /// The cues of one `wvtt` sample, each shown for the whole sample: its `vttc` boxes' `payl`
    /// text. A `vtte` (no cue) or a cue with no text gives nothing.
    package static func cues(inSample bytes: [UInt8], _ range: Range<Int>, start: Double, end: Double) -> [SubtitleCue] {
        MP4Boxes.children(of: bytes, in: range).compactMap { box -> SubtitleCue? in
            guard box.type == "vttc", let payload = MP4Boxes.child("payl", of: box, in: bytes) else { return nil }
            let text = plain(fromCueText: Substring(String(decoding: bytes[payload.payload], as: UTF8.self)))
            return text.isEmpty ? nil : SubtitleCue(start: start, end: end, text: text)
        }
    }
}
