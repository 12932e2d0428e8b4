/// A WebVTT file as an HLS subtitle segment carries it (W3C WebVTT; RFC 8216 §3.5): its cues,
/// their markup made plain, and the X-TIMESTAMP-MAP that puts cue times onto the media's
/// timestamps. NOTE, STYLE and REGION blocks, cue identifiers and cue settings are passed
/// over. Pure: bytes in, cues out; a block that cannot be read is skipped and counted.
package struct WebVTTDocument: Equatable, Sendable {
    /// X-TIMESTAMP-MAP: the cue time `local` (seconds) is the media's MPEG-2 timestamp `mpegTS`
    /// (90 kHz, 33 bits).
    package struct TimestampMap: Equatable, Sendable {
        package var local: Double
        package var mpegTS: Int64

        /// Seconds to add to a cue time for the media's timestamp in seconds.
        package var offset: Double { Double(mpegTS & Self.timestampMask) / 90_000 - local }

        static let timestampMask: Int64 = (1 << 33) - 1
    }

    /// The cues as written, times in the file's own seconds.
    package var cues: [SubtitleCue] = []
    package var timestampMap: TimestampMap?
    /// Blocks that looked like cues but whose timings could not be read.
    package var skippedBlocks = 0

    package struct NotWebVTT: Error, Equatable {
        package var reason: String
    }

    /// Reads `bytes` (UTF-8, a byte-order mark allowed); throws when they do not start with
    /// the WEBVTT signature.
    package static func parse(_ bytes: [UInt8]) throws(NotWebVTT) -> WebVTTDocument {
        let text = String(decoding: bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes, as: UTF8.self)
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
        let afterSignature = lines.first?.dropFirst(6).first
        guard let first = lines.first, first.hasPrefix("WEBVTT"), afterSignature == nil || afterSignature == " " || afterSignature == "\t" else {
            throw NotWebVTT(reason: "no WEBVTT signature")
        }
        var document = WebVTTDocument()
        var index = 1
        // The header: up to the first blank line.
        while index < lines.count, !lines[index].allSatisfy(\.isWhitespace) {
            if lines[index].hasPrefix("X-TIMESTAMP-MAP=") { document.timestampMap = timestampMap(lines[index].dropFirst(16)) }
            index += 1
        }
        while index < lines.count {
            while index < lines.count, lines[index].allSatisfy(\.isWhitespace) { index += 1 }
            let start = index
            while index < lines.count, !lines[index].allSatisfy(\.isWhitespace) { index += 1 }
            guard start < index else { break }
            document.take(lines[start..<index])
        }
        return document
    }

    /// One block: a cue (an identifier line, perhaps, then its timings, then its text), or a
    /// NOTE, STYLE or REGION block, which is passed over.
    private mutating func take(_ block: ArraySlice<Substring>) {
        guard let timingIndex = block.prefix(2).firstIndex(where: { $0.contains("-->") }) else {
            let word = block.first?.prefix { !$0.isWhitespace } ?? ""
            if !["NOTE", "STYLE", "REGION"].contains(word) { skippedBlocks += 1 }
            return
        }
        let timing = block[timingIndex]
        guard let arrow = timing.firstRange(of: "-->"), let start = Self.timestamp(timing[..<arrow.lowerBound].trimmingWhitespace()),
              let end = Self.timestamp(timing[arrow.upperBound...].trimmingWhitespace().prefix { !$0.isWhitespace }), end >= start else {
            skippedBlocks += 1
            return
        }
        let text = WebVTTText.plain(fromCueText: Substring(block[(timingIndex + 1)...].joined(separator: "\n")))
        if !text.isEmpty { cues.append(SubtitleCue(start: start, end: end, text: text)) }
    }

    /// `LOCAL:hh:mm:ss.ttt,MPEGTS:n`, in either order.
    private static func timestampMap(_ value: Substring) -> TimestampMap? {
        var local: Double?
        var mpegTS: Int64?
        for field in value.split(separator: ",") {
            let trimmed = field.trimmingWhitespace()
            if trimmed.hasPrefix("LOCAL:") { local = timestamp(trimmed.dropFirst(6)) }
            if trimmed.hasPrefix("MPEGTS:") { mpegTS = Int64(trimmed.dropFirst(7)) }
        }
        guard let local, let mpegTS, mpegTS >= 0 else { return nil }
        return TimestampMap(local: local, mpegTS: mpegTS)
    }

    /// A WebVTT timestamp, `(hh:)mm:ss.ttt`, in seconds; nil when malformed.
    package static func timestamp(_ text: Substring) -> Double? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(fields.count), let last = fields.last else { return nil }
        let secondsParts = last.split(separator: ".", omittingEmptySubsequences: false)
        guard secondsParts.count == 2, secondsParts[0].count == 2, secondsParts[1].count == 3,
              (secondsParts[0] + secondsParts[1]).allSatisfy({ $0.isASCII && $0.isNumber }),
              let seconds = Int(secondsParts[0]), let milliseconds = Int(secondsParts[1]), seconds < 60,
              fields.dropLast().allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }) else { return nil }
        let minutes = Int(fields[fields.count - 2]) ?? 60
        guard fields[fields.count - 2].count == 2, minutes < 60 else { return nil }
        // Hours: at least two digits, at most enough for a day's worth of seconds a thousandfold.
        let hours = fields.count == 3 ? (fields[0].count >= 2 && fields[0].count <= 6 ? Int(fields[0]) : nil) : 0
        guard let hours else { return nil }
        return Double(hours * 3600 + minutes * 60 + seconds) + Double(milliseconds) / 1000
    }
}
