/// One whole request and answer outside the I/O layer's byte sources: a license POST, a clock's
/// HEAD. No cache, no retries: the caller says what a failure means.
extension CurlTransfer {
    /// Runs the request started on this transfer to its end: the answer's head and body (at
    /// most `limit` bytes), within `DocumentLimit.seconds`, given up as soon as `isCancelled`
    /// says so.
    func exchange(limit: Int, isCancelled: () -> Bool) throws(MediaError) -> (head: HTTPResponseHead, body: [UInt8]) {
        var body: [UInt8] = []
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 14, alignment: 1)
        defer { chunk.deallocate() }
        let deadline = MonotonicClock.now() + DocumentLimit.seconds
        while MonotonicClock.now() < deadline {
            if isCancelled() { throw MediaError(input: requested, reason: "cancelled") }
            let progress = pump(waitingUpTo: 0.1)
            while case let count = receiver.take(into: chunk), count > 0 { body += chunk[..<count] }
            guard body.count <= limit else { throw MediaError(input: requested, reason: "an answer larger than \(limit) bytes: refused") }
            switch progress {
            case .receiving: continue
            case let .failed(_, reason): throw MediaError(input: requested, reason: reason)
            case .completed: return (receiver.head, body)
            }
        }
        throw MediaError(input: requested, reason: "no answer within \(Int(DocumentLimit.seconds)) s")
    }
}
