/// The status and header fields of an HTTP response, gathered line by line as libcurl hands them
/// over. A redirect or an interim response starts a new head; the last one is the answer.
struct HTTPResponseHead: Equatable {
    var status = 0
    var reason = ""
    /// Field names in lower case; a repeated field keeps its last value.
    var fields: [String: String] = [:]

    mutating func add(line: String) {
        var text = Substring(line)
        while let last = text.last, last.isNewline { text = text.dropLast() }  // "\r\n" is one Character
        if text.hasPrefix("HTTP/") {
            self = HTTPResponseHead()
            let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            if parts.count >= 2 { status = Int(parts[1]) ?? 0 }
            if parts.count == 3 { reason = String(parts[2]) }
            return
        }
        guard let colon = text.firstIndex(of: ":") else { return }
        let name = text[..<colon].lowercased()
        fields[name] = String(text[text.index(after: colon)...].drop { $0 == " " || $0 == "\t" })
    }

    /// A redirect to follow: 301, 302, 303, 307 or 308, naming where (a 304 is an answer).
    var isRedirect: Bool { [301, 302, 303, 307, 308].contains(status) && fields["location"] != nil }

    /// "HTTP 404 Not Found", as an error's reason.
    var statusText: String { reason.isEmpty ? "HTTP \(status)" : "HTTP \(status) \(reason)" }

    /// Where the body starts in the resource: the first byte of a 206's Content-Range, else 0.
    var bodyOffset: Int64 {
        guard status == 206, let range = contentRange else { return 0 }
        return range.first
    }

    /// What the head says of the resource, for a body that starts at `bodyOffset`.
    var info: ByteSourceInfo {
        var length: Int64?
        if status == 206 {
            length = contentRange?.total
        } else if let field = fields["content-length"], let value = Int64(field) {
            length = value
        }
        return ByteSourceInfo(contentLength: length, mimeType: fields["content-type"], entityTag: fields["etag"],
                              lastModified: fields["last-modified"],
                              acceptsRanges: status == 206 || fields["accept-ranges"]?.lowercased() == "bytes")
    }

    /// "bytes 100-199/1000": the first byte and the total (nil for "*").
    private var contentRange: (first: Int64, total: Int64?)? {
        guard let field = fields["content-range"], field.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = field.dropFirst(6)
        guard let dash = spec.firstIndex(of: "-"), let slash = spec.firstIndex(of: "/"),
              let first = Int64(spec[..<dash].filter { $0 != " " }) else { return nil }
        return (first, Int64(spec[spec.index(after: slash)...].filter { $0 != " " }))
    }
}
