/// Why a transfer ended before the bytes asked for did.
enum TransferFailure: Equatable, Sendable {
    case httpStatus(Int)
    case cannotResolve
    case cannotConnect
    case tls
    /// Nothing arrived for the network timeout.
    case timedOut
    /// The connection closed before the body's end.
    case cutShort
    /// Refused by the player's own rules (a redirect to another protocol, a head too large):
    /// the same request would be refused again.
    case refused
    case other
}

/// Whether, and after how long, a failed transfer is tried again: a pure decision, tested by
/// table. Bytes already received make a failure a drop to ride out; at the opening, only what
/// may pass on its own (a busy server, a timeout) is tried again, and a wrong address, a refused
/// certificate or a missing file fail at once.
enum TransferRetry {
    /// The waits before each new attempt, doubling; one attempt per entry.
    static let delays = [0.25, 0.5, 1, 2, 4]
    /// Attempts at the opening, where a user waits for the error.
    static let openingAttempts = 3

    /// The wait before attempt `attempt + 1` (attempt counts the failures in a row, from 1); nil: give up.
    static func delay(after failure: TransferFailure, attempt: Int, isOpening: Bool) -> Double? {
        let attempts = isOpening ? openingAttempts : delays.count
        guard attempt >= 1, attempt <= attempts else { return nil }
        switch failure {
        case let .httpStatus(status):
            guard status >= 500 || status == 408 || status == 429 else { return nil }
        case .cannotResolve, .tls, .refused:
            return nil
        case .cannotConnect, .other:
            guard !isOpening else { return nil }
        case .timedOut, .cutShort:
            break
        }
        return delays[attempt - 1]
    }
}
