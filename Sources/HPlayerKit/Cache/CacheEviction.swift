/// Which URLs the disk cache gives up when it holds more than its limit.
package enum CacheEviction {
    /// The URLs to drop, least recently used first, so that the total size is at or under
    /// `maxBytes`; URLs in `inUse` are never chosen.
    ///
    /// When the URLs in use alone are over the limit, every other URL is chosen: the cache stays
    /// over its limit until they are no longer in use.
    package static func victims(sizes: [(url: String, bytes: Int64, lastUsed: Double)], maxBytes: Int64, inUse: Set<String>) -> [String] {
        var total = sizes.reduce(0) { $0 + $1.bytes }
        // Ties in lastUsed go by URL, so the choice does not depend on the order of `sizes`.
        let candidates = sizes.filter { !inUse.contains($0.url) }
            .sorted { ($0.lastUsed, $0.url) < ($1.lastUsed, $1.url) }
        var chosen: [String] = []
        for candidate in candidates {
            guard total > maxBytes else { break }
            chosen.append(candidate.url)
            total -= candidate.bytes
        }
        return chosen
    }
}
