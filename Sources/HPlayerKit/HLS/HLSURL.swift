/// A playlist's URIs are relative to the playlist's own URL (RFC 8216 §4.1, RFC 3986 §5.2):
/// resolved here, as a pure function.
enum HLSURL {
    static func resolve(_ reference: String, against base: String) -> String {
        if hasScheme(reference) { return reference }
        guard let schemeEnd = base.firstRange(of: "://") else { return reference }
        let scheme = base[..<schemeEnd.lowerBound]
        let afterScheme = base[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex(where: isPathDelimiter) ?? afterScheme.endIndex
        let authority = afterScheme[..<authorityEnd]
        if reference.hasPrefix("//") { return "\(scheme):\(reference)" }
        var basePath = String(afterScheme[authorityEnd...])
        if let cut = basePath.firstIndex(where: isQueryDelimiter) { basePath = String(basePath[..<cut]) }
        if reference.hasPrefix("?") { return "\(scheme)://\(authority)\(basePath)\(reference)" }
        let (referencePath, suffix) = splitQuery(reference)
        let merged: String
        if referencePath.hasPrefix("/") {
            merged = referencePath
        } else {
            let directory = basePath.lastIndex(of: "/").map { String(basePath[...$0]) } ?? "/"
            merged = directory + referencePath
        }
        return "\(scheme)://\(authority)\(removingDotSegments(merged))\(suffix)"
    }

    /// The scheme and authority ("http://host:port", lowercased, user info left out): the
    /// server a throughput estimate is kept for; nil for a URL without one.
    static func server(of url: String) -> String? {
        guard let schemeEnd = url.firstRange(of: "://") else { return nil }
        let afterScheme = url[schemeEnd.upperBound...]
        var authority = afterScheme[..<(afterScheme.firstIndex(where: isPathDelimiter) ?? afterScheme.endIndex)]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        guard !authority.isEmpty else { return nil }
        return "\(url[..<schemeEnd.lowerBound])://\(authority)".lowercased()
    }

    private static func splitQuery(_ reference: String) -> (path: String, suffix: String) {
        guard let cut = reference.firstIndex(where: isQueryDelimiter) else { return (reference, "") }
        return (String(reference[..<cut]), String(reference[cut...]))
    }

    /// "http:…", "https:…": a scheme before any / ? #.
    private static func hasScheme(_ reference: String) -> Bool { OriginPolicy.scheme(of: reference) != nil }

    private static func isQueryDelimiter(_ character: Character) -> Bool { character == "?" || character == "#" }
    private static func isPathDelimiter(_ character: Character) -> Bool { character == "/" || isQueryDelimiter(character) }

    /// "/a/b/../c/./d" → "/a/c/d".
    private static func removingDotSegments(_ path: String) -> String {
        var output: [Substring] = []
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        for (index, part) in parts.enumerated() {
            switch part {
            case ".":
                if index == parts.count - 1 { output.append("") }
            case "..":
                if output.count > 1 { output.removeLast() }
                if index == parts.count - 1 { output.append("") }
            default:
                output.append(part)
            }
        }
        let joined = output.joined(separator: "/")
        return joined.hasPrefix("/") ? joined : "/" + joined
    }
}
