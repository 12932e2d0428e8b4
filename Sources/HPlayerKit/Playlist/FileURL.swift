/// file:// URLs and the paths they name (RFC 8089): what a desktop passes for a file (its
/// desktop entry's %U, MPRIS's OpenUri) is opened as the path, and a path is told as a URL.
package enum FileURL {
    /// A playlist entry as a URL: a URL stays, a path becomes file:// (absolute, percent-encoded).
    package static func url(of entry: String, workingDirectory: String) -> String {
        if entry.contains("://") { return entry }
        let absolute = entry.hasPrefix("/") ? entry : workingDirectory + "/" + entry
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/".utf8)
        return "file://" + absolute.utf8.map { unreserved.contains($0) ? String(UnicodeScalar($0)) : hex($0) }.joined()
    }

    /// A file:// URI as the path the player opens; other URIs as they are.
    package static func path(ofURI uri: String) -> String {
        guard uri.lowercased().hasPrefix("file://") else { return uri }
        var bytes: [UInt8] = []
        var rest = Array(uri.utf8.dropFirst("file://".count))
        // file://host/path: the path starts at the first slash (the host is this machine).
        if let slash = rest.firstIndex(of: UInt8(ascii: "/")) { rest.removeSubrange(..<slash) }
        var index = 0
        while index < rest.count {
            if rest[index] == UInt8(ascii: "%"), index + 2 < rest.count,
               let byte = UInt8(String(decoding: rest[index + 1...index + 2], as: UTF8.self), radix: 16) {
                bytes.append(byte)
                index += 3
            } else {
                bytes.append(rest[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "%" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 15)])
    }
}
