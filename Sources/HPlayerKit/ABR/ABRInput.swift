/// One segment's download, as the throughput estimates learn from it.
public struct ThroughputSample: Equatable, Sendable {
    public var bytes: Double
    /// From the request to the last byte.
    public var seconds: Double
    /// When the last byte came, on the session's clock (seconds).
    public var finishedAt: Double

    public init(bytes: Double, seconds: Double, finishedAt: Double) {
        self.bytes = bytes
        self.seconds = seconds
        self.finishedAt = finishedAt
    }

    /// Bits per second; a download too quick to time counts as 50 ms, as hls.js has it.
    public var bitsPerSecond: Double { bytes * 8 / max(seconds, 0.05) }
}

/// What a bitrate policy decides from: plain values, as the HLS client or the simulator has them.
/// A decision is a rung of the ladder: an index into `bitrates`, lowest first.
public struct ABRInput: Equatable, Sendable {
    /// The ladder's bit rates, bits per second, ascending.
    public var bitrates: [Double]
    /// The next segment's duration, seconds of media.
    public var segmentDuration: Double
    /// The sizes in bytes of the next segments at each rung (`upcomingSizes[k][rung]`, k
    /// segments from the next), as far as known; where not, bit rate × duration.
    public var upcomingSizes: [[Double]] = []
    /// Segments left to fetch, the next one included; nil when unknown (live).
    public var segmentsLeft: Int?
    /// The downloads so far, oldest first.
    public var samples: [ThroughputSample] = []
    /// Seconds of media buffered ahead of the playhead.
    public var buffer: Double
    /// The most the player buffers ahead, seconds.
    public var maxBuffer: Double
    /// The rung of the last segment fetched; nil before the first.
    public var current: Int?
    /// When the rung last changed, on the session's clock; nil: never.
    public var lastSwitchAt: Double?
    /// The session's clock, seconds.
    public var now: Double
    /// Media seconds played per second.
    public var playbackRate: Double = 1
    /// Playback ran dry since the last decision (a stall, or still waiting for data): the
    /// design's "not playable".
    public var isStarved = false
    /// Bits per second before any download: the playlist's own download, or the estimate an
    /// earlier session left; nil: none.
    public var initialEstimate: Double?

    public init(bitrates: [Double], segmentDuration: Double, buffer: Double, maxBuffer: Double, now: Double) {
        self.bitrates = bitrates
        self.segmentDuration = segmentDuration
        self.buffer = buffer
        self.maxBuffer = maxBuffer
        self.now = now
    }

    /// The size in bytes of the segment `ahead` segments from the next, at `rung`.
    public func size(ahead: Int, rung: Int) -> Double {
        if ahead < upcomingSizes.count, rung < upcomingSizes[ahead].count { return upcomingSizes[ahead][rung] }
        return bitrates[rung] / 8 * segmentDuration
    }

    /// The highest rung whose bit rate is at most `bitsPerSecond`; the lowest when none is.
    public func highestRung(within bitsPerSecond: Double) -> Int {
        bitrates.lastIndex { $0 <= bitsPerSecond } ?? 0
    }
}

/// A policy's answer: the rung of the next segment, and how long to wait before fetching it.
public struct ABRDecision: Equatable, Sendable {
    public var rung: Int
    /// Seconds to hold the download back (BOLA's, so as not to fill the buffer with a low rung).
    public var delay: Double

    public init(rung: Int, delay: Double = 0) {
        self.rung = rung
        self.delay = delay
    }
}

/// What policies carry from one decision to the next, as plain values.
public struct ABRMemory: Equatable, Sendable {
    /// BOLA: dash.js's placeholder buffer, seconds, and whether the first segment is still to come.
    public var bolaPlaceholder = 0.0
    public var bolaIsStarting = true
    /// auto: the throughput predicted at each decision, for the error of the ones since measured.
    public var predictions: [Double] = []
    /// auto: whether its last switch went up (nil: none yet).
    public var lastSwitchWasUp: Bool?

    public init() {}
}
