/// The throughput the first segment's variant is chosen by, before any segment was fetched, and
/// when an estimate is worth saving for the next session. Pure, tested by table.
package enum StartupEstimate {
    /// An estimate an earlier session saved for a server.
    package struct Saved: Equatable, Sendable {
        package var bitsPerSecond: Double
        /// When it was saved, seconds since 1970.
        package var savedAt: Double

        package init(bitsPerSecond: Double, savedAt: Double) {
            self.bitsPerSecond = bitsPerSecond
            self.savedAt = savedAt
        }
    }

    package enum Origin: String, Equatable, Sendable {
        case earlierSession = "an earlier session's"
        case playlist = "the playlist's download"
    }

    /// A saved estimate older than a day says little about the network now.
    package static let maximumAge = 86_400.0
    /// A new estimate is saved once it differs this much from the one saved last.
    package static let saveChange = 0.1

    /// An earlier session's estimate for the server while recent, since it was measured on whole
    /// segments; else the playlist's own download, which a round trip dominates (so it errs
    /// low, which only makes the start cautious); nil without either.
    package static func initial(saved: Saved?, playlist: ThroughputSample?, now: Double) -> (bitsPerSecond: Double, origin: Origin)? {
        if let saved, saved.bitsPerSecond.isFinite, saved.bitsPerSecond > 0, (0...maximumAge).contains(now - saved.savedAt) {
            return (saved.bitsPerSecond, .earlierSession)
        }
        if let playlist, playlist.bytes > 0 { return (playlist.bitsPerSecond, .playlist) }
        return nil
    }

    /// Whether `estimate` should replace `lastSaved` (nil: none saved by this session yet).
    package static func shouldSave(_ estimate: Double, lastSaved: Double?) -> Bool {
        guard estimate.isFinite, estimate > 0 else { return false }
        guard let lastSaved, lastSaved > 0 else { return true }
        return abs(estimate - lastSaved) >= saveChange * lastSaved
    }
}
