/// Playlist files as players write them: M3U (and a .m3u8 that is not HLS), PLS, and a plain
/// list of a path or URL a line (mpv's --playlist). Pure: text in, entries out, each relative
/// path placed against the playlist's own folder.
package enum PlaylistFile {
    package enum Format: Equatable, Sendable {
        case m3u
        case pls
        /// A path or URL a line, `#` lines being comments: M3U's rules, whatever the name.
        case lines
    }

    /// The format of a file named `name` holding `text`; nil when it is not a playlist (an HLS
    /// playlist is media, played as such).
    package static func format(name: String, text: String) -> Format? {
        let body = text.drop { $0 == "\u{FEFF}" || $0.isWhitespace }
        if body.lowercased().hasPrefix("[playlist]") { return .pls }
        let lowered = name.lowercased()
        guard lowered.hasSuffix(".m3u") || lowered.hasSuffix(".m3u8") || lowered.hasSuffix(".pls") else { return nil }
        if lowered.hasSuffix(".pls") { return .pls }
        return isHLS(text) ? nil : .m3u
    }

    /// Whether the text is an HLS playlist (RFC 8216): a tag of its own, which a list of files
    /// never has.
    package static func isHLS(_ text: String) -> Bool {
        text.split(whereSeparator: \.isNewline).contains { line in
            ["#EXT-X-TARGETDURATION", "#EXT-X-STREAM-INF", "#EXT-X-MEDIA-SEQUENCE", "#EXT-X-MEDIA:", "#EXT-X-ENDLIST"]
                .contains { line.hasPrefix($0) }
        }
    }

    /// The entries, in order; a relative one placed against `folder` (a local folder, or a
    /// URL's for a playlist fetched from one).
    package static func entries(_ text: String, format: Format, folder: String) -> [String] {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingWhitespace() }
        let references: [Substring]
        switch format {
        case .m3u, .lines:
            references = lines.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        case .pls:
            // FileN=…, in the order of N (a file may list them in any order).
            references = lines.compactMap { line -> (Int, Substring)? in
                guard line.lowercased().hasPrefix("file"), let equals = line.firstIndex(of: "=") else { return nil }
                guard let number = Int(line[line.index(line.startIndex, offsetBy: 4)..<equals]) else { return nil }
                let value = line[line.index(after: equals)...].trimmingWhitespace()
                return value.isEmpty ? nil : (number, value)
            }.sorted { $0.0 < $1.0 }.map(\.1)
        }
        return references.map { place(String($0), in: folder) }
    }

    /// `reference` as a path or URL of its own.
    static func place(_ reference: String, in folder: String) -> String {
        if reference.contains("://") || folder.isEmpty { return reference }
        // A remote playlist's entries are on its server, "/x" at the server's root.
        if folder.contains("://") { return HLSURL.resolve(reference, against: folder.hasSuffix("/") ? folder : folder + "/") }
        if reference.hasPrefix("/") { return reference }
        return folder.hasSuffix("/") ? folder + reference : folder + "/" + reference
    }
}

extension Substring {
    /// The text without the spaces, tabs and byte-order mark around it.
    package func trimmingWhitespace() -> Substring {
        let start = firstIndex { !$0.isWhitespace && $0 != "\u{FEFF}" } ?? endIndex
        let end = lastIndex { !$0.isWhitespace }.map { index(after: $0) } ?? start
        return start < end ? self[start..<end] : self[start..<start]
    }
}
