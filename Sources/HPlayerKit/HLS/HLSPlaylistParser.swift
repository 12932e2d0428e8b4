/// Reads an HLS playlist (RFC 8216): a pure function of its text. Unknown tags are ignored, as
/// the RFC asks; what a player cannot go on from is an error naming the line.
package enum HLSPlaylistParser {
    package static func parse(_ text: String) throws(HLSPlaylistError) -> HLSPlaylist {
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated().map {
            (number: $0.offset + 1, text: $0.element.trimmingBlanks)
        }
        if let first = lines.first?.text, first.hasPrefix("\u{FEFF}") { lines[0].text = first.dropFirst() }
        guard lines.first?.text == "#EXTM3U" else { throw HLSPlaylistError(line: 1, reason: "not a playlist: it must begin with #EXTM3U") }
        let tags = Set(lines.compactMap { $0.text.hasPrefix("#EXT") ? tagName(of: $0.text) : nil })
        let isMaster = tags.contains("EXT-X-STREAM-INF") || tags.contains("EXT-X-MEDIA")
        if isMaster, let line = lines.first(where: { tagName(of: $0.text) == "EXTINF" }) {
            throw HLSPlaylistError(line: line.number, reason: "a master playlist (EXT-X-STREAM-INF, EXT-X-MEDIA) cannot list segments (EXTINF)")
        }
        var reader = Reader(lines: Array(lines.dropFirst()))
        return isMaster ? .master(try reader.master()) : .media(try reader.media())
    }

    /// The most segments (or variants, or renditions) one playlist may list: a day of 1-second
    /// segments is 86,400. Past it the playlist is refused, before a server's text can make the
    /// player hold more.
    package static let entryLimit = 100_000

    static func checkEntryLimit(_ count: Int, line: Int) throws(HLSPlaylistError) {
        guard count < entryLimit else { throw HLSPlaylistError(line: line, reason: "more than \(entryLimit) entries: refused") }
    }

    /// "#EXTINF:2," → "EXTINF".
    static func tagName(of line: Substring) -> Substring {
        let tag = line.dropFirst()
        return tag.firstIndex(of: ":").map { tag[..<$0] } ?? tag
    }
}

private struct Reader {
    let lines: [(number: Int, text: Substring)]

    mutating func master() throws(HLSPlaylistError) -> HLSMasterPlaylist {
        var playlist = HLSMasterPlaylist()
        var pending: (line: Int, variant: HLSVariant)?
        for (number, text) in lines where !text.isEmpty {
            if !text.hasPrefix("#") {
                guard let variant = pending?.variant else { continue }  // a URI with no EXT-X-STREAM-INF: ignored
                try HLSPlaylistParser.checkEntryLimit(playlist.variants.count, line: number)
                var made = variant
                made.uri = String(text)
                playlist.variants.append(made)
                pending = nil
                continue
            }
            let (name, value) = split(text)
            switch name {
            case "EXT-X-STREAM-INF":
                let attributes = try AttributeList(value, line: number)
                guard let bandwidth = attributes.integer("BANDWIDTH") else {
                    throw HLSPlaylistError(line: number, reason: "EXT-X-STREAM-INF without BANDWIDTH")
                }
                var variant = HLSVariant(uri: "", bandwidth: bandwidth)
                variant.averageBandwidth = attributes.integer("AVERAGE-BANDWIDTH")
                if let resolution = attributes["RESOLUTION"] {
                    let parts = resolution.lowercased().split(separator: "x")
                    guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]) else {
                        throw HLSPlaylistError(line: number, reason: "RESOLUTION \(resolution) is not WIDTHxHEIGHT")
                    }
                    variant.resolution = HLSResolution(width: width, height: height)
                }
                variant.codecs = attributes["CODECS"].map { $0.split(separator: ",").map { String($0.trimmingBlanks) } } ?? []
                variant.frameRate = attributes["FRAME-RATE"].flatMap { Double($0) }
                variant.audioGroup = attributes["AUDIO"]
                variant.videoGroup = attributes["VIDEO"]
                variant.subtitlesGroup = attributes["SUBTITLES"]
                pending = (number, variant)
            case "EXT-X-MEDIA":
                let attributes = try AttributeList(value, line: number)
                guard let type = attributes["TYPE"], let kind = HLSRendition.Kind(rawValue: type) else {
                    throw HLSPlaylistError(line: number, reason: "EXT-X-MEDIA without a known TYPE")
                }
                guard let group = attributes["GROUP-ID"], let name = attributes["NAME"] else {
                    throw HLSPlaylistError(line: number, reason: "EXT-X-MEDIA without GROUP-ID and NAME")
                }
                try HLSPlaylistParser.checkEntryLimit(playlist.renditions.count, line: number)
                playlist.renditions.append(HLSRendition(
                    kind: kind, groupID: group, name: name, uri: attributes["URI"], language: attributes["LANGUAGE"],
                    isDefault: attributes["DEFAULT"] == "YES", autoselect: attributes["AUTOSELECT"] == "YES",
                    channels: attributes["CHANNELS"]))
            case "EXT-X-INDEPENDENT-SEGMENTS":
                playlist.hasIndependentSegments = true
            default:
                break
            }
        }
        if let pending { throw HLSPlaylistError(line: pending.line, reason: "EXT-X-STREAM-INF with no URI after it") }
        return playlist
    }

    mutating func media() throws(HLSPlaylistError) -> HLSMediaPlaylist {
        var playlist = HLSMediaPlaylist()
        var hasTargetDuration = false
        var segmentInfo: (duration: Double, title: String)?
        var byteRange: (line: Int, length: Int64, offset: Int64?)?
        var isDiscontinuity = false
        var programDateTime: String?
        var key: HLSKey?
        var map: HLSMap?
        var discontinuities = 0
        /// Where the last sub-range of each URI ended: a BYTERANGE without an offset goes on from it.
        var rangeEnds: [String: Int64] = [:]
        var sawSegment = false
        for (number, text) in lines where !text.isEmpty {
            if !text.hasPrefix("#") {
                guard let info = segmentInfo else { throw HLSPlaylistError(line: number, reason: "a segment URI with no EXTINF before it") }
                try HLSPlaylistParser.checkEntryLimit(playlist.segments.count, line: number)
                let uri = String(text)
                var range: HLSByteRange?
                if let byteRange {
                    guard let offset = byteRange.offset ?? rangeEnds[uri] else {
                        throw HLSPlaylistError(line: byteRange.line, reason: "EXT-X-BYTERANGE without an offset, and no range of \(uri) before it")
                    }
                    range = HLSByteRange(length: byteRange.length, offset: offset)
                    rangeEnds[uri] = offset + byteRange.length
                }
                playlist.segments.append(HLSSegment(
                    uri: uri, duration: info.duration, title: info.title,
                    sequenceNumber: playlist.mediaSequence + playlist.segments.count,
                    discontinuitySequence: playlist.discontinuitySequence + discontinuities, isDiscontinuity: isDiscontinuity,
                    byteRange: range, key: key, map: map, programDateTime: programDateTime))
                segmentInfo = nil
                byteRange = nil
                isDiscontinuity = false
                programDateTime = nil
                sawSegment = true
                continue
            }
            let (name, value) = split(text)
            switch name {
            case "EXT-X-TARGETDURATION":
                guard let seconds = Double(value), seconds >= 0 else {
                    throw HLSPlaylistError(line: number, reason: "EXT-X-TARGETDURATION \(value) is not a number of seconds")
                }
                playlist.targetDuration = seconds
                hasTargetDuration = true
            case "EXT-X-MEDIA-SEQUENCE", "EXT-X-DISCONTINUITY-SEQUENCE":
                guard !sawSegment, segmentInfo == nil else { throw HLSPlaylistError(line: number, reason: "\(name) after the first segment") }
                guard let sequence = Int(value), sequence >= 0 else { throw HLSPlaylistError(line: number, reason: "\(name) \(value) is not a number") }
                if name == "EXT-X-MEDIA-SEQUENCE" { playlist.mediaSequence = sequence } else { playlist.discontinuitySequence = sequence }
            case "EXTINF":
                let parts = value.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)
                guard let first = parts.first, let duration = Double(first.trimmingBlanks), duration >= 0 else {
                    throw HLSPlaylistError(line: number, reason: "EXTINF without a duration in seconds")
                }
                segmentInfo = (duration, parts.count > 1 ? String(parts[1]) : "")
            case "EXT-X-BYTERANGE":
                guard let range = Self.byteRange(value) else {
                    throw HLSPlaylistError(line: number, reason: "EXT-X-BYTERANGE \(value) is not LENGTH[@OFFSET]")
                }
                byteRange = (number, range.length, range.offset)
            case "EXT-X-DISCONTINUITY":
                isDiscontinuity = true
                discontinuities += 1
            case "EXT-X-PROGRAM-DATE-TIME":
                programDateTime = String(value)
            case "EXT-X-ENDLIST":
                playlist.hasEndList = true
            case "EXT-X-PLAYLIST-TYPE":
                guard let type = HLSMediaPlaylist.PlaylistType(rawValue: String(value)) else {
                    throw HLSPlaylistError(line: number, reason: "EXT-X-PLAYLIST-TYPE \(value) is neither VOD nor EVENT")
                }
                playlist.playlistType = type
            case "EXT-X-KEY":
                key = try Self.key(value, line: number)
            case "EXT-X-MAP":
                let attributes = try AttributeList(value, line: number)
                guard let uri = attributes["URI"] else { throw HLSPlaylistError(line: number, reason: "EXT-X-MAP without URI") }
                var mapRange: HLSByteRange?
                if let text = attributes["BYTERANGE"] {
                    guard let range = Self.byteRange(Substring(text)) else {
                        throw HLSPlaylistError(line: number, reason: "EXT-X-MAP BYTERANGE \(text) is not LENGTH[@OFFSET]")
                    }
                    mapRange = HLSByteRange(length: range.length, offset: range.offset ?? 0)
                }
                map = HLSMap(uri: uri, byteRange: mapRange)
            default:
                break
            }
        }
        guard hasTargetDuration else {
            throw HLSPlaylistError(line: 1, reason: "a media playlist without EXT-X-TARGETDURATION")
        }
        return playlist
    }

    /// "#EXTINF:2,title" → ("EXTINF", "2,title").
    private func split(_ line: Substring) -> (name: Substring, value: Substring) {
        let tag = line.dropFirst()
        guard let colon = tag.firstIndex(of: ":") else { return (tag, "") }
        return (tag[..<colon], tag[tag.index(after: colon)...])
    }

    /// "LENGTH[@OFFSET]".
    private static func byteRange(_ text: Substring) -> (length: Int64, offset: Int64?)? {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count <= 2, let length = Int64(parts[0]), length >= 0 else { return nil }
        guard parts.count == 2 else { return (length, nil) }
        guard let offset = Int64(parts[1]), offset >= 0 else { return nil }
        return (length, offset)
    }

    /// EXT-X-KEY; METHOD=NONE clears the key.
    private static func key(_ value: Substring, line: Int) throws(HLSPlaylistError) -> HLSKey? {
        let attributes = try AttributeList(value, line: line)
        guard let methodText = attributes["METHOD"] else { throw HLSPlaylistError(line: line, reason: "EXT-X-KEY without METHOD") }
        if methodText == "NONE" { return nil }
        guard let method = HLSKey.Method(rawValue: methodText) else {
            throw HLSPlaylistError(line: line, reason: "EXT-X-KEY METHOD \(methodText) is not supported")
        }
        guard let uri = attributes["URI"] else { throw HLSPlaylistError(line: line, reason: "EXT-X-KEY without URI") }
        var iv: [UInt8]?
        if let text = attributes["IV"] {
            guard let bytes = hexBytes(text), bytes.count <= 16 else {
                throw HLSPlaylistError(line: line, reason: "EXT-X-KEY IV \(text) is not 0x and up to 32 hex digits")
            }
            iv = [UInt8](repeating: 0, count: 16 - bytes.count) + bytes
        }
        return HLSKey(method: method, uri: uri, iv: iv)
    }

    private static func hexBytes(_ text: String) -> [UInt8]? {
        guard text.hasPrefix("0x") || text.hasPrefix("0X") else { return nil }
        var digits = Array(text.dropFirst(2).utf8)
        guard !digits.isEmpty else { return nil }
        if digits.count % 2 == 1 { digits.insert(UInt8(ascii: "0"), at: 0) }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

/// A tag's attribute list: NAME=VALUE pairs, comma separated; a quoted value may hold commas.
private struct AttributeList {
    private var values: [String: String] = [:]

    init(_ text: Substring, line: Int) throws(HLSPlaylistError) {
        var rest = text[...]
        while !rest.isEmpty {
            guard let equals = rest.firstIndex(of: "=") else {
                throw HLSPlaylistError(line: line, reason: "attribute \(rest) has no value")
            }
            let name = String(rest[..<equals].trimmingBlanks)
            rest = rest[rest.index(after: equals)...]
            let value: Substring
            if rest.first == "\"" {
                let body = rest.dropFirst()
                guard let close = body.firstIndex(of: "\"") else {
                    throw HLSPlaylistError(line: line, reason: "attribute \(name) has an unclosed quote")
                }
                value = body[..<close]
                rest = body[body.index(after: close)...]
                if let comma = rest.firstIndex(of: ",") { rest = rest[rest.index(after: comma)...] } else { rest = "" }
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<end].trimmingBlanks
                rest = end == rest.endIndex ? "" : rest[rest.index(after: end)...]
            }
            values[name] = String(value)
        }
    }

    subscript(name: String) -> String? { values[name] }

    func integer(_ name: String) -> Int? { values[name].flatMap { Int($0) } }
}

private extension Substring {
    var trimmingBlanks: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" || last.isNewline { text = text.dropLast() }
        return text
    }
}
