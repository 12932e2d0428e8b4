
/// One HTTP request as it ended: a line of `--stats-dir`'s network.tsv.
public struct NetworkRequest: Sendable, Equatable {
    /// Monotonic seconds when it was sent.
    public var startedAt: Double
    /// The resource asked for; a redirect's target is a request of its own.
    public var url: String
    /// The byte range asked for, as the Range header has it ("100-" or "100-199"); "" for all.
    public var range: String
    /// The answer's HTTP status; 0 when none came.
    public var status: Int
    /// Body bytes received, those dropped on the way to the reader included.
    public var bytes: Int64
    /// Seconds from sending to the end of the transfer.
    public var seconds: Double
    /// How the transfer ended.
    public var outcome: Outcome

    /// How a transfer ended; its `description` is network.tsv's outcome column.
    public enum Outcome: Sendable, Equatable, CustomStringConvertible {
        /// The body arrived to its end.
        case completed
        /// The reader stopped it: a seek, another resource, the end of what it wanted, a close.
        case stopped
        /// It failed, for this reason (a connection refused, a timeout, an HTTP error).
        case failed(String)

        public var description: String {
            switch self {
            case .completed: "completed"
            case .stopped: "stopped"
            case .failed(let reason): "failed: \(reason)"
            }
        }
    }
}

/// What the I/O layer tells a monitor.
public enum NetworkEvent: Sendable, Equatable {
    /// A request has ended.
    case request(NetworkRequest)
    /// A transfer failed and is tried again after `delay` seconds (or elsewhere, as `reason` says).
    case retry(url: String, reason: String, delay: Double)
    /// An HLS variant is played from here on: its declared bandwidth and picture size.
    case variant(bandwidth: Int, width: Int?, height: Int?)
}

/// Watches every request of the I/O layer: its events go to `onEvent` (on the reading thread,
/// so it must be quick), and the bytes received make the download speed (mpv's cache-speed).
public final class NetworkMonitor: Sendable {
    private let onEvent: (@Sendable (NetworkEvent) -> Void)?
    private let meter = Locked(SpeedMeter())
    private let variant = Locked<VariantInfo?>(nil)

    /// Set it as `NetworkOptions.monitor`; `onEvent` nil measures the speed alone.
    public init(onEvent: (@Sendable (NetworkEvent) -> Void)? = nil) {
        self.onEvent = onEvent
    }

    func note(_ event: NetworkEvent) {
        if case let .variant(bandwidth, width, height) = event {
            variant.withLock { $0 = VariantInfo(bandwidth: bandwidth, width: width, height: height, codecs: [], isPlaying: true) }
        }
        onEvent?(event)
    }

    /// The HLS variant fetched now (the last `variant` event); nil before one, or for other media.
    public var playingVariant: VariantInfo? { variant.withLock { $0 } }

    func received(_ count: Int64, at now: Double = MonotonicClock.now()) {
        meter.withLock { $0.add(count, at: now) }
    }

    /// Bytes per second received lately; 0 when nothing arrives.
    public var bytesPerSecond: Double {
        let now = MonotonicClock.now()
        return meter.withLock { $0.speed(at: now) }
    }
}

extension NetworkMonitor: Equatable {
    /// The same instance.
    public static func == (lhs: NetworkMonitor, rhs: NetworkMonitor) -> Bool { lhs === rhs }
}

/// Download speed over windows of at least a second: pure, tested by table.
package struct SpeedMeter: Sendable, Equatable {
    package static let window = 1.0
    private var windowStart: Double?
    private var windowBytes: Int64 = 0
    private var lastSpeed = 0.0
    private var lastArrival = -Double.infinity

    package init() {}

    package mutating func add(_ count: Int64, at now: Double) {
        guard count > 0 else { return }
        let start = windowStart ?? now
        // After a silence, the last window's speed no longer says anything: start afresh.
        if now - lastArrival > 2 * Self.window {
            windowStart = now
            windowBytes = count
            lastArrival = now
            lastSpeed = 0
            return
        }
        windowBytes += count
        lastArrival = now
        if now - start >= Self.window {
            lastSpeed = Double(windowBytes) / (now - start)
            windowStart = now
            windowBytes = 0
        } else {
            windowStart = start
        }
    }

    /// The last full window's speed, or 0 once nothing has arrived for two windows.
    package func speed(at now: Double) -> Double {
        now - lastArrival > 2 * Self.window ? 0 : lastSpeed
    }
}
