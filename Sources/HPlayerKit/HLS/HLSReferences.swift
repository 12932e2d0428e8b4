/// A URL a playlist names that OriginPolicy refuses, and why.
package struct RefusedReference: Equatable, Sendable {
    package var url: String
    package var reason: String
}

/// The playlist with what OriginPolicy refuses taken out, each URI resolved against `base` (the
/// playlist's own URL): a variant or rendition whose playlist is refused, a segment whose URI,
/// key or initialization section is. A pure function, tested by table; the refusals are listed
/// once each, in order.
enum HLSReferences {
    static func allowed(_ playlist: HLSPlaylist, base: String) -> (HLSPlaylist, [RefusedReference]) {
        var refused: [RefusedReference] = []
        var seen: Set<String> = []
        func isAllowed(_ uri: String) -> Bool {
            let url = OriginPolicy.resolve(uri, against: base)
            guard let reason = OriginPolicy.refusal(of: url, namedBy: base) else { return true }
            if seen.insert(url).inserted { refused.append(RefusedReference(url: url, reason: reason)) }
            return false
        }
        switch playlist {
        case var .master(master):
            master.variants = master.variants.filter { isAllowed($0.uri) }
            master.renditions = master.renditions.filter { $0.uri.map(isAllowed) ?? true }
            return (.master(master), refused)
        case var .media(media):
            media.segments = media.segments.compactMap { segment in
                var segment = segment
                segment.mirrors.removeAll { !isAllowed($0) }
                segment.map?.mirrors.removeAll { !isAllowed($0) }
                // Each checked, so that every refused URL is told. A SAMPLE-AES-CTR key's URI is
                // asked only when it is an http(s) license server: a data URI names a key ID.
                let parts = [isAllowed(segment.uri), segment.key.map { $0.method == .sampleAESCTR || isAllowed($0.uri) } ?? true,
                             segment.map.map { isAllowed($0.uri) } ?? true]
                return parts.contains(false) ? nil : segment
            }
            return (.media(media), refused)
        }
    }
}
