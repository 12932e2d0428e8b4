import Synchronization

/// An HTTP(S) resource read through libcurl (`CurlTransfer`), for FFmpeg as for anything else
/// that reads bytes.
///
/// A connection that drops mid-body, or sends nothing for the network timeout, is reopened with
/// a Range request from the byte where it stopped, after a wait that doubles (`TransferRetry`):
/// not one byte is lost. A seek within what has arrived, or a little ahead of it, reads on;
/// further, it asks for a new range. `cancel` makes a wait for the network return at once.
public final class HTTPByteSource: ByteSource, HTTPResource, @unchecked Sendable {
    /// What it reads now: `open(url:at:)` moves it on to another resource on the same
    /// connection (the segments of a playlist).
    public private(set) var url: String
    private let options: NetworkOptions
    private let cancelled = Atomic<Bool>(false)
    /// Made by `open`; used by the read thread alone, but for `wake`.
    private let transfer = Locked<CurlTransfer?>(nil)

    // The read thread's own.
    private var current: CurlTransfer?
    private var isTransferring = false
    /// The next byte `read` returns.
    private var offset: Int64 = 0
    /// The body reached the resource's end.
    private var isAtEnd = false
    /// Where reading stops short of the resource's end, when only a range of it is read.
    private var end: Int64?
    /// Failures in a row, since bytes for the reader last arrived.
    private var failures = 0
    private var lastProgress = (arrived: Int64(0), at: 0.0)
    private var lastKept: Int64 = 0
    /// When the last pump ended: a reader away longer (its queues were full) did not see a stall.
    private var lastPumpEnd = 0.0
    public private(set) var info = ByteSourceInfo(acceptsRanges: false)
    private var hasInfo = false

    /// A seek this far past what has arrived reads on and drops the bytes between, rather than
    /// opening a new request.
    static let readOnLimit: Int64 = 256 << 10

    /// Connects to nothing yet: `open(at:)` does, on the read thread. `options` as the player's
    /// (`SourceOptions.network`); a `cache` in them is not used here.
    public init(url: String, options: NetworkOptions = NetworkOptions()) {
        self.url = url
        self.options = options
    }

    public func open(at offset: Int64) throws(MediaError) {
        try open(url: url, at: offset)
    }

    /// Opens `url`, reusing the handle (and its connection) when one is open already; with
    /// `length`, only that many bytes from `offset` (a byte range of a playlist's segment). A
    /// continuation (the next segment of a stream already playing) rides out what a first
    /// opening reports at once: a refused connection is a server restarting, not a wrong address.
    /// There is no cache here: `caching` is for CachingHTTPSource.
    package func open(url newURL: String, at offset: Int64, length: Int64? = nil, isContinuation: Bool = false,
                     caching: CacheUse = .bypass) throws(MediaError) {
        url = newURL
        end = length.map { offset + $0 }
        let made = try transfer(to: newURL)
        info = ByteSourceInfo(acceptsRanges: false)
        hasInfo = false
        failures = 0
        self.offset = offset
        try begin(at: offset)
        // The first answer fills `info`; errors at the opening are reported from here.
        while !made.receiver.hasBody, isTransferring {
            try checkCancelled()
            try pump(made, isOpening: !isContinuation)
        }
    }

    /// Asks the server whether content kept with these validators is still current: a
    /// conditional request for the first byte, answered 304 when it is (an ETag is sent where
    /// known, else the Last-Modified date). Throws when the server cannot be reached or errs,
    /// with no retry: the caller plays what it kept. Reading starts again with `open`.
    package func revalidate(url newURL: String, entityTag: String?, lastModified: String?) throws(MediaError) -> Revalidation {
        url = newURL
        let made = try transfer(to: newURL)
        made.receiver.clearPending()
        made.start(at: 0, end: 1, extraFields: Revalidation.conditionFields(entityTag: entityTag, lastModified: lastModified))
        defer {
            made.stop()
            made.receiver.clearPending()
            isTransferring = false
        }
        let started = MonotonicClock.now()
        while true {
            try checkCancelled()
            let progress = made.pump(waitingUpTo: 0.1)
            let head = made.receiver.head
            if made.receiver.hasBody { return .answered(head.info) }
            switch progress {
            case .receiving:
                if MonotonicClock.now() - started > options.timeout {
                    throw MediaError(input: newURL, reason: "nothing received for \(DecimalText.fixed(options.timeout, places: 1)) s")
                }
            case .completed:
                return head.status == 304 ? .notModified : .answered(head.info)
            case let .failed(_, reason):
                throw MediaError(input: newURL, reason: reason)
            }
        }
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(MediaError) -> Int {
        guard let current else { throw MediaError(input: url, reason: "not open") }
        while true {
            try checkCancelled()
            if let end, offset >= end { return 0 }
            let room = end.map { Int(min(Int64(buffer.count), $0 - offset)) } ?? buffer.count
            let count = current.receiver.take(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<room]))
            if count > 0 {
                offset += Int64(count)
                return count
            }
            if !isTransferring {
                if isAtEnd { return 0 }
                if let length = info.contentLength, offset >= length { return 0 }
                try begin(at: offset)
            }
            try pump(current, isOpening: false)
        }
    }

    public func seek(to target: Int64) throws(MediaError) {
        guard let current else { throw MediaError(input: url, reason: "not open") }
        guard target != offset else { return }
        if let length = info.contentLength, target > length {
            throw MediaError(input: url, reason: "seek to \(target) past the end (\(length) bytes)")
        }
        let receiver = current.receiver
        defer { offset = target }
        if target > offset, target <= offset + Int64(receiver.pendingCount) {
            receiver.drop(Int(target - offset))
            return
        }
        // nextPosition: where the next byte to arrive lies.
        if isTransferring, target >= receiver.nextPosition, target - receiver.nextPosition <= Self.readOnLimit {
            receiver.skipArriving(target - receiver.nextPosition)
            return
        }
        current.stop()
        current.receiver.clearPending()
        isTransferring = false
        isAtEnd = false
    }

    package func cachedContent(of url: String, limit: Int) -> [UInt8]? { nil }

    /// Ends the transfer and lets its connection go: a server is not left sending to a reader
    /// that has gone. A later `open` starts a new one.
    public func close() {
        current = nil
        isTransferring = false
        transfer.withLock { $0 = nil }
    }

    /// `cancel` has been called: every read fails from now on.
    package var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    public func cancel() {
        cancelled.store(true, ordering: .relaxed)
        transfer.withLock { $0 }?.wake()
    }

    // MARK: The transfer

    /// The transfer, pointed at `url`: the one made before (its connection kept) or a new one.
    private func transfer(to url: String) throws(MediaError) -> CurlTransfer {
        if let current {
            current.stop()
            current.retarget(url: url)
            return current
        }
        let made = try CurlTransfer(url: url, options: options)
        current = made
        transfer.withLock { $0 = made }
        return made
    }

    private func begin(at position: Int64) throws(MediaError) {
        guard let current else { return }
        current.receiver.clearPending()
        current.start(at: position, end: end)
        isTransferring = true
        isAtEnd = false
        lastProgress = (0, MonotonicClock.now())
    }

    /// Moves the transfer on once: bytes arrive, or it ends (at the resource's end, or failed and
    /// then begun again after its wait), or it has stalled.
    private func pump(_ current: CurlTransfer, isOpening: Bool) throws(MediaError) {
        if MonotonicClock.now() - lastPumpEnd > 1 { lastProgress.at = MonotonicClock.now() }
        let progress = current.pump(waitingUpTo: 0.1)
        let receiver = current.receiver
        let now = MonotonicClock.now()
        lastPumpEnd = now
        if receiver.arrived != lastProgress.arrived { lastProgress = (receiver.arrived, now) }
        // Only bytes kept are progress against failures: a server that ignores Range and is cut
        // before the byte asked for every time must not be retried for ever.
        if receiver.kept != lastKept {
            lastKept = receiver.kept
            failures = 0
        }
        if receiver.hasBody { try noteHead(receiver.head) }
        switch progress {
        case .receiving:
            guard now - lastProgress.at > options.timeout else { return }
            current.stop()
            isTransferring = false
            try retry(after: .timedOut, reason: "nothing received for \(DecimalText.fixed(options.timeout, places: 1)) s",
                      isOpening: isOpening)
        case .completed:
            current.stop()
            isTransferring = false
            // A body that ends short of the length the server gave was cut.
            let resumeAt = receiver.nextPosition + receiver.skip
            guard let length = end ?? info.contentLength, resumeAt < length else {
                isAtEnd = true
                return
            }
            try retry(after: .cutShort, reason: "the connection closed at byte \(resumeAt) of \(length)", isOpening: isOpening)
        case let .failed(failure, reason):
            current.stop()
            isTransferring = false
            try retry(after: failure, reason: reason, isOpening: isOpening && !receiver.hasBody)
        }
    }

    /// Waits before trying again, then asks for the rest; throws when the policy gives up.
    private func retry(after failure: TransferFailure, reason: String, isOpening: Bool) throws(MediaError) {
        guard let current else { return }
        // Every byte asked for had arrived (an HTTP/2 stream reset after the last): the end.
        if let length = end ?? info.contentLength, current.receiver.nextPosition + current.receiver.skip >= length {
            isAtEnd = true
            return
        }
        failures += 1
        guard let delay = TransferRetry.delay(after: failure, attempt: failures, isOpening: isOpening) else {
            let tries = failures > 1 ? " (after \(failures) tries)" : ""
            throw MediaError(input: url, reason: reason + tries)
        }
        let resumeAt = current.receiver.nextPosition + current.receiver.skip
        Log.network.warning("\(url): \(reason); trying again from byte \(resumeAt) in \(delay) s")
        options.monitor?.note(.retry(url: url, reason: reason, delay: delay))
        try sleep(delay)
        // What arrived and was not read yet stays: the new request starts after it.
        current.start(at: resumeAt, end: end)
        isTransferring = true
        lastProgress = (0, MonotonicClock.now())
    }

    /// The answer's head: the first one fills `info`; a later one must describe the same resource.
    private func noteHead(_ head: HTTPResponseHead) throws(MediaError) {
        let answer = head.info
        guard hasInfo else {
            info = answer
            hasInfo = true
            return
        }
        if let before = info.entityTag, let now = answer.entityTag, before != now {
            throw MediaError(input: url, reason: "changed on the server while playing (ETag \(before), now \(now))")
        }
    }

    private func checkCancelled() throws(MediaError) {
        if isCancelled { throw MediaError(input: url, reason: "cancelled") }
    }

    /// Sleeps `seconds`, or until cancelled.
    private func sleep(_ seconds: Double) throws(MediaError) {
        let end = MonotonicClock.now() + seconds
        while MonotonicClock.now() < end {
            try checkCancelled()
            MonotonicClock.sleep(until: min(end, MonotonicClock.now() + 0.02))
        }
        try checkCancelled()
    }
}
