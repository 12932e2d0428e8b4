import Glibc

/// An HTTP resource read through the disk cache: what is cached is read from its fragment files
/// with no request, and only the gaps are fetched, each as a range of its own; what arrives is
/// kept in blocks of `blockSize`, each committed (CacheWriter) once received whole. Content
/// information (length, type, validators) is kept with the fragments, so a cached resource opens
/// with the server gone. A response whose validators differ from the kept ones drops what was
/// kept: two versions are never mixed. An entry the server last confirmed longer ago than
/// `DiskCache.revalidationAge` is checked again first (`revalidate`), when the server answers.
///
/// `open`, `read` and `seek` come on the read thread; `cancel` from any.
package final class CachingHTTPSource: HTTPResource, @unchecked Sendable {
    package private(set) var url: String
    private let network: HTTPByteSource
    private let store: CacheStore
    private let revalidationAge: Double
    private var writer: CacheWriter?
    /// What the cache holds of the file opened with `open(at:)` (a progressive download).
    package let cacheMap: CacheMap?

    // The read thread's own.
    private var use = CacheUse.store
    private var entry: CacheEntry?
    private var fragments: [CachedFragment] = []
    /// The next byte `read` returns, and where reading stops (a segment's byte range).
    private var offset: Int64 = 0
    private var end: Int64?
    private var isContinuation = false
    /// The fragment file being read.
    private var file: (descriptor: Int32, fragment: CachedFragment)?
    /// The gap the network transfer is reading (`end` nil: to the resource's end).
    private var gap: (start: Int64, end: Int64?)?
    /// The parts of the gap this reader claimed, sorted: what it keeps of it. Another player
    /// fetching the same bytes at once keeps the rest (one writer per range).
    private var claims: [RangeClaim] = []
    /// Bytes received whole from `blockStart` on, not handed to the writer yet.
    private let block = UnsafeMutableRawBufferPointer.allocate(byteCount: CachingHTTPSource.blockSize, alignment: 16)
    private var blockCount = 0
    private var blockStart: Int64 = 0

    /// What is received is committed in blocks of this size, and what is left at a seek or at the end.
    static let blockSize = 1 << 20

    package init(url: String, options: NetworkOptions, store: CacheStore) {
        self.url = url
        self.store = store
        revalidationAge = options.cache?.revalidationAge ?? DiskCache.defaultRevalidationAge
        network = HTTPByteSource(url: url, options: options)
        cacheMap = CacheMap(store: store)
    }

    deinit {
        close()
        block.deallocate()
    }

    package var info: ByteSourceInfo {
        guard use == .store, let entry else { return network.info }
        return ByteSourceInfo(contentLength: entry.contentLength, mimeType: entry.mimeType, entityTag: entry.entityTag,
                              lastModified: entry.lastModified, acceptsRanges: entry.acceptsRanges)
    }

    package var isCancelled: Bool { network.isCancelled }

    package func cancel() { network.cancel() }

    package func open(at offset: Int64) throws(MediaError) {
        cacheMap?.setLayout(.bytes(url: url))
        try open(url: url, at: offset, length: nil, isContinuation: false, caching: .store)
    }

    package func open(url newURL: String, at offset: Int64, length: Int64?, isContinuation: Bool, caching: CacheUse) throws(MediaError) {
        handOverBlock()
        closeFile()
        endGap()
        url = newURL
        self.offset = offset
        end = length.map { offset + $0 }
        self.isContinuation = isContinuation
        use = caching
        entry = nil
        fragments = []
        guard caching == .store else {
            try network.open(url: newURL, at: offset, length: length, isContinuation: isContinuation)
            return
        }
        if let stored = store.entry(for: newURL).flatMap(revalidate) {
            entry = stored
            fragments = store.fragments(for: newURL)
            store.touch(newURL)
        }
        // Opened at a gap (or unknown): the request goes out now, so that its errors are the opening's.
        if case .cached = nextPiece() { return }
        try fetchGap()
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(MediaError) -> Int {
        guard use == .store else {
            let count = try network.read(into: buffer)
            offset += Int64(count)
            return count
        }
        while true {
            if isCancelled { throw MediaError(input: url, reason: "cancelled") }
            let limit = readLimit
            if let limit, offset >= limit {
                handOverBlock()
                return 0
            }
            let room = limit.map { Int(min(Int64(buffer.count), $0 - offset)) } ?? buffer.count
            if let file, offset >= file.fragment.offset, offset < file.fragment.end {
                let count = Int(min(Int64(room), file.fragment.end - offset))
                let got = pread(file.descriptor, buffer.baseAddress, count, off_t(offset - file.fragment.offset))
                guard got > 0 else {
                    throw MediaError(input: url, reason: "cannot read the cached fragment \(file.fragment.path): \(String(cString: strerror(errno)))")
                }
                offset += Int64(got)
                return got
            }
            if let gap, offset >= gap.start, gap.end.map({ offset < $0 }) ?? true {
                let count = try network.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<room]))
                if count > 0 {
                    keep(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                    offset += Int64(count)
                    return count
                }
                handOverBlock()
                endGap()
                // At the gap's end, what follows is cached (or the range is done); short of it,
                // the resource itself ended.
                guard let gapEnd = gap.end, offset >= gapEnd else { return 0 }
                continue
            }
            closeFile()
            switch nextPiece() {
            case let .cached(fragment, _, _)?:
                try openFile(fragment)
            case .gap?:
                try fetchGap()
            case nil:
                return 0
            }
        }
    }

    package func seek(to target: Int64) throws(MediaError) {
        guard use == .store else {
            try network.seek(to: target)
            offset = target
            return
        }
        guard target != offset else { return }
        // Only bytes that follow one another make a block.
        handOverBlock()
        if let gap, target >= gap.start, gap.end.map({ target < $0 }) ?? true {
            try network.seek(to: target)
        } else {
            endGap()
            // Our own blocks may have been committed since the opening.
            fragments = store.fragments(for: url)
        }
        offset = target
    }

    package func cachedContent(of target: String, limit: Int) -> [UInt8]? {
        guard let stored = store.entry(for: target).flatMap(revalidate), let length = stored.contentLength, length <= limit else {
            return nil
        }
        let pieces = FragmentCoverage.pieces(offset: 0, length: length, contentLength: length, fragments: store.fragments(for: target))
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(length))
        for piece in pieces {
            guard case let .cached(fragment, start, count) = piece, let part = Self.read(fragment.path, from: start, count: count) else {
                return nil
            }
            bytes += part
        }
        store.touch(target)
        return bytes
    }

    /// Lets the connection go, hands what is left to the writer, and waits until everything is
    /// committed.
    package func close() {
        network.close()
        handOverBlock()
        endGap()
        closeFile()
        writer?.stop()
        writer = nil
    }

    // MARK: Pieces

    /// Where reading stops: the range's end, else the resource's when known.
    private var readLimit: Int64? { end ?? entry?.contentLength }

    private func nextPiece() -> RangePiece? {
        FragmentCoverage.pieces(offset: offset, length: end.map { $0 - offset }, contentLength: entry?.contentLength,
                                fragments: fragments).first
    }

    /// `stored`, or nil when the server now has other content (what was kept is then dropped).
    /// Checked when the server last confirmed it longer ago than the revalidation age, by a
    /// conditional request (If-None-Match, else If-Modified-Since): 304 keeps it; any other answer
    /// has its length and validators compared. A server that cannot be reached leaves the cache
    /// as it is: offline, it plays.
    private func revalidate(_ stored: CacheEntry) -> CacheEntry? {
        guard WallClock.now() - stored.checkedAt >= revalidationAge else { return stored }
        let answer: Revalidation
        do {
            answer = try network.revalidate(url: stored.url, entityTag: stored.entityTag, lastModified: stored.lastModified)
        } catch {
            Log.cache.debug("\(stored.url): not revalidated (\(error.reason)): playing what is cached")
            return stored
        }
        var checked = stored
        checked.checkedAt = WallClock.now()
        if case let .answered(info) = answer, !stored.hasSameContent(as: CacheEntry(url: stored.url, response: info, at: checked.checkedAt)) {
            Log.cache.info("\(stored.url): changed on the server: what was cached of it is dropped")
            store.remove(stored.url)
            return nil
        }
        store.save(checked)
        return checked
    }

    /// Asks the network for the gap at `offset`: up to the next cached fragment (or the range's end).
    private func fetchGap() throws(MediaError) {
        var gapEnd = end
        if case let .gap(_, length)? = nextPiece(), let length { gapEnd = offset + length }
        do {
            try network.open(url: url, at: offset, length: gapEnd.map { $0 - offset }, isContinuation: isContinuation)
        } catch {
            // Offline with part of it cached: say so, rather than the network's error alone.
            if entry != nil, !isCancelled {
                throw MediaError(input: url, reason: "not cached, and the network is unreachable (\(error.reason))")
            }
            throw error
        }
        gap = (offset, gapEnd)
        noteResponse()
        claims = store.claim(ByteRange(start: offset, end: gapEnd ?? .max), of: url)
    }

    /// The transfer's gap is done with; its claims end once what was kept of it is committed.
    private func endGap() {
        gap = nil
        guard !claims.isEmpty else { return }
        if let writer {
            writer.release(claims)
        } else {
            store.releaseClaims(claims)
        }
        claims = []
    }

    /// What an answer's head says of `target`, as an entry used and checked at `now`.
    /// The response's content information is kept; when it says the content changed, what was kept is dropped.
    private func noteResponse() {
        let fresh = CacheEntry(url: url, response: network.info, at: WallClock.now())
        if let entry, !entry.hasSameContent(as: fresh) {
            Log.cache.info("\(url): changed on the server: what was cached of it is dropped")
            fragments = []
        }
        store.save(fresh)
        entry = fresh
    }

    /// `count` bytes of the file at `path` from `start`; nil when they cannot all be read.
    private static func read(_ path: String, from start: Int64, count: Int64) -> [UInt8]? {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { Glibc.close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: Int(count))
        let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(start)) }
        return got == Int(count) ? bytes : nil
    }

    private func openFile(_ fragment: CachedFragment) throws(MediaError) {
        let descriptor = Glibc.open(fragment.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            // Evicted by another player since it was listed: fetched instead.
            fragments.removeAll { $0 == fragment }
            Log.cache.debug("\(url): the cached fragment \(fragment.path) has gone: fetching those bytes")
            return
        }
        file = (descriptor, fragment)
    }

    private func closeFile() {
        if let file { Glibc.close(file.descriptor) }
        file = nil
    }

    // MARK: Blocks

    /// Adds bytes just received at `offset` to the block, handing it over when it is full.
    private func keep(_ bytes: UnsafeRawBufferPointer) {
        if blockCount > 0, blockStart + Int64(blockCount) != offset { handOverBlock() }
        if blockCount == 0 { blockStart = offset }
        var rest = bytes
        while !rest.isEmpty {
            let count = min(rest.count, block.count - blockCount)
            UnsafeMutableRawBufferPointer(rebasing: block[blockCount..<blockCount + count]).copyMemory(from: UnsafeRawBufferPointer(rebasing: rest[..<count]))
            blockCount += count
            rest = UnsafeRawBufferPointer(rebasing: rest[count...])
            if blockCount == block.count {
                let start = blockStart
                handOverBlock()
                blockStart = start + Int64(block.count)
            }
        }
    }

    /// Hands the block to the writer: the parts of it this reader claimed.
    private func handOverBlock() {
        defer { blockCount = 0 }
        guard blockCount > 0, use == .store, entry != nil else { return }
        let received = ByteRange(start: blockStart, end: blockStart + Int64(blockCount))
        for part in RangeClaims.owned(received, claimed: claims.map(\.range)) {
            if writer == nil { writer = CacheWriter(store: store) }
            let start = Int(part.start - blockStart), end = Int(part.end - blockStart)
            writer?.commit(url: url, offset: part.start, bytes: Array(block[start..<end]))
        }
    }
}
