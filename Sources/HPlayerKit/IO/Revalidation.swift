/// What a conditional request (If-None-Match, If-Modified-Since) answered about content kept
/// from an earlier response.
package enum Revalidation: Equatable, Sendable {
    /// 304 Not Modified: what was kept is still the server's.
    case notModified
    /// The server answered with the resource, as the head describes it: it changed, or the server
    /// does not evaluate validators (the caller compares them).
    case answered(ByteSourceInfo)

    /// The request header fields that ask the server whether content with these validators is
    /// still current. The ETag is the stronger check: RFC 9110 has a server ignore
    /// If-Modified-Since when If-None-Match is sent.
    package static func conditionFields(entityTag: String?, lastModified: String?) -> [String] {
        if let entityTag { return ["If-None-Match: \(entityTag)"] }
        if let lastModified { return ["If-Modified-Since: \(lastModified)"] }
        return []
    }
}
