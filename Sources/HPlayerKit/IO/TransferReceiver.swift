/// What a transfer's callbacks write into: the response head, and the body bytes not yet read.
/// The read thread's alone (libcurl calls back on the thread that drives it).
final class TransferReceiver {
    private(set) var head = HTTPResponseHead()
    /// Set by the first body byte of a response: the head is then the answer's.
    private(set) var hasBody = false
    /// Where in the resource the next byte to arrive belongs.
    private(set) var nextPosition: Int64 = 0
    /// Arriving bytes still to drop: a server that ignored the range, or a short seek forward.
    private(set) var skip: Int64 = 0
    /// Bytes arrived since the transfer began, dropped ones included: progress, for stall detection.
    private(set) var arrived: Int64 = 0
    /// Bytes kept for the reader since the receiver was made.
    private(set) var kept: Int64 = 0
    private var bytes: [UInt8] = []
    private var readIndex = 0
    /// The bytes of the response heads of this request so far, and whether they passed `headLimit`.
    private var headBytes = 0
    private(set) var isHeadTooLarge = false
    /// The most a server may send as heads before one body (mpv's libavformat allows less; a
    /// browser about as much).
    static let headLimit = 64 << 10

    init() { bytes.reserveCapacity(1 << 18) }

    var pendingCount: Int { bytes.count - readIndex }

    /// A new request from `position`, the bytes before it that arrived and were not read kept.
    func begin(at position: Int64) {
        head = HTTPResponseHead()
        hasBody = false
        nextPosition = position
        skip = 0
        arrived = 0
        headBytes = 0
        isHeadTooLarge = false
    }

    /// A redirect is followed: the next head is the next hop's. Where the bytes go, and those
    /// still to drop, stay as they are.
    func beginHop() {
        head = HTTPResponseHead()
        hasBody = false
        headBytes = 0
        isHeadTooLarge = false
    }

    /// Adds a head's line of `byteCount` bytes; false when the heads have grown past `headLimit`
    /// (the transfer is then ended).
    func addHeader(_ line: String, byteCount: Int) -> Bool {
        headBytes += byteCount
        guard headBytes <= Self.headLimit else {
            isHeadTooLarge = true
            return false
        }
        head.add(line: line)
        return true
    }

    func receive(_ data: UnsafeRawBufferPointer) {
        // A redirect's body is not the resource's: the redirect is followed instead. Its bytes
        // are progress all the same, for the stall timeout.
        if head.isRedirect {
            arrived += Int64(data.count)
            return
        }
        if !hasBody {
            hasBody = true
            // A server that ignored the range starts earlier: drop up to where the request did.
            let start = head.bodyOffset
            if start < nextPosition {
                skip += nextPosition - start
                nextPosition = start
            }
        }
        arrived += Int64(data.count)
        nextPosition += Int64(data.count)
        var wanted = data
        if skip > 0 {
            let dropped = Int(min(skip, Int64(data.count)))
            skip -= Int64(dropped)
            wanted = UnsafeRawBufferPointer(rebasing: data[dropped...])
        }
        guard !wanted.isEmpty else { return }
        kept += Int64(wanted.count)
        if readIndex == bytes.count {
            bytes.removeAll(keepingCapacity: true)
            readIndex = 0
        }
        bytes.append(contentsOf: wanted)
    }

    /// Moves what has arrived into `buffer`; the count moved.
    func take(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(buffer.count, pendingCount)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + readIndex, byteCount: count) }
        readIndex += count
        return count
    }

    /// Forgets `count` pending bytes (a seek within them).
    func drop(_ count: Int) { readIndex += min(count, pendingCount) }

    /// Drops the next `count` bytes to arrive, after the pending ones are forgotten.
    func skipArriving(_ count: Int64) {
        clearPending()
        skip = count
    }

    func clearPending() {
        bytes.removeAll(keepingCapacity: true)
        readIndex = 0
        skip = 0
    }
}
