/// The segment stream's manifests: fetched through the I/O layer, read by the front end, what
/// they may not name taken out, and a live one reloaded until the next segment is listed.
extension SegmentStream {
    /// Live: reloads the playlist until a segment after `sequence` is listed; its index, or nil
    /// when the playlist has ended instead.
    func awaitSegment(after sequence: Int) throws(MediaError) -> Int? {
        var unchanged = false
        while true {
            if let index = playlist.segments.firstIndex(where: { $0.sequenceNumber > sequence }) {
                if playlist.segments[index].sequenceNumber > sequence + 1 {
                    Log.network.warning("\(playlistURL): fell out of the live window; jumping to segment \(playlist.segments[index].sequenceNumber)")
                }
                return index
            }
            guard playlist.isLive else { return nil }
            // Reloaded every target duration, or half of it when it did not change.
            try wait(max(0.5, unchanged ? playlist.targetDuration / 2 : playlist.targetDuration))
            let before = playlist.segments.last?.sequenceNumber
            var reloaded: HLSPlaylist
            do {
                reloaded = try front.read(playlistURL, isReload: true, through: self)
                failedReloads = 0
            } catch {
                if http.isCancelled { throw error }
                failedReloads += 1
                guard failedReloads <= Self.reloadFailureLimit else { throw error }
                Log.network.warning("\(playlistURL): reloading failed: \(error.reason); trying again")
                continue
            }
            // A refused URL is not a reload's passing failure: it is not ridden out.
            reloaded = try allowedReferences(of: reloaded, from: playlistURL)
            guard case let .media(media) = reloaded else {
                throw MediaError(input: playlistURL, reason: "the live playlist became a master playlist")
            }
            playlist = media
            unchanged = playlist.segments.last?.sequenceNumber == before
        }
    }

    func wait(_ seconds: Double) throws(MediaError) {
        let end = MonotonicClock.now() + seconds
        while MonotonicClock.now() < end {
            if http.isCancelled { throw MediaError(input: url, reason: "cancelled") }
            MonotonicClock.sleep(until: min(end, MonotonicClock.now() + 0.02))
        }
    }

    /// A manifest's bytes. One the cache holds is taken from it when `isUsableFromCache` says so
    /// (not a live one, which changes as it is played: that is fetched); a reload
    /// (`isLive`) is never kept. The fetch is a throughput sample for the first variant.
    /// `isThroughputSample`: false for a document too small to time the network by (a clock).
    func fetchDocument(_ target: String, isLive: Bool, isThroughputSample: Bool = true,
                       isUsableFromCache: ([UInt8]) -> Bool) throws(MediaError) -> [UInt8] {
        if !isLive, let cached = http.cachedContent(of: target, limit: Self.playlistLimit) {
            if isUsableFromCache(cached) { return cached }
            Log.cache.debug("\(target): a live manifest: fetched, not taken from the cache")
        }
        let started = MonotonicClock.now()
        try http.open(url: target, at: 0, length: nil, isContinuation: false, caching: isLive ? .bypass : .store)
        let bytes = try http.readAll(limit: Self.playlistLimit)
        let finished = MonotonicClock.now()
        if isThroughputSample { playlistDownload = ThroughputSample(bytes: Double(bytes.count), seconds: finished - started, finishedAt: finished) }
        return bytes
    }

    /// `length` bytes of `target` from `offset` (an index, an initialization section), through the
    /// disk cache.
    func fetchRange(_ target: String, offset: Int64, length: Int64?) throws(MediaError) -> [UInt8] {
        try http.open(url: target, at: offset, length: length, isContinuation: highestPosition > 0, caching: .store)
        return try http.readAll(limit: Self.playlistLimit)
    }

    /// A playlist, an initialization section or a key larger than this is refused.
    static let playlistLimit = DocumentLimit.bytes

    /// The manifest at `source`, read by the front end, with what it may not name taken out.
    func manifest(at source: String) throws(MediaError) -> HLSPlaylist {
        try allowedReferences(of: try front.read(source, isReload: false, through: self), from: source)
    }

    /// `playlist` less the URLs OriginPolicy refuses, each told in one line (once, not at every
    /// live reload). When nothing playable is left, the stream fails at once: a refused URL is
    /// never tried, so not tried again.
    func allowedReferences(of playlist: HLSPlaylist, from source: String) throws(MediaError) -> HLSPlaylist {
        let (allowed, refused) = HLSReferences.allowed(playlist, base: source)
        guard !refused.isEmpty else { return allowed }
        var untold = 0
        for reference in refused where toldRefusals.insert(reference.url).inserted {
            guard toldRefusals.count <= Self.refusalsTold else {
                untold += 1
                continue
            }
            Log.network.error("\(source): refused \(reference.url): \(reference.reason)")
        }
        if untold > 0 { Log.network.error("\(source): refused \(untold) more URLs, not each told") }
        switch allowed {
        case let .master(master) where master.variants.isEmpty:
            throw MediaError(input: source, reason: "every variant's URL was refused (\(refused[0].reason))")
        case let .media(media) where media.segments.isEmpty:
            throw MediaError(input: source, reason: "every segment's URL was refused (\(refused[0].reason))")
        default:
            return allowed
        }
    }
}
