/// One segment's download, as the throughput estimates learn from it.
package struct ThroughputSample: Equatable, Sendable {
    package var bytes: Double
    /// From the request to the last byte.
    package var seconds: Double
    /// When the last byte came, on the session's clock (seconds).
    package var finishedAt: Double

    package init(bytes: Double, seconds: Double, finishedAt: Double) {
        self.bytes = bytes
        self.seconds = seconds
        self.finishedAt = finishedAt
    }

    /// Bits per second; a download too quick to time counts as 50 ms, as hls.js has it.
    package var bitsPerSecond: Double { bytes * 8 / max(seconds, 0.05) }
}

/// What a bitrate policy decides from: plain values, as the HLS client or the simulator has them.
/// A decision is a rung of the ladder: an index into `bitrates`, lowest first.
package struct ABRInput: Equatable, Sendable {
    /// The ladder's bit rates, bits per second, ascending.
    package var bitrates: [Double]
    /// The next segment's duration, seconds of media.
    package var segmentDuration: Double
    /// The sizes in bytes of the next segments at each rung (`upcomingSizes[k][rung]`, k
    /// segments from the next), as far as known; where not, bit rate × duration.
    package var upcomingSizes: [[Double]] = []
    /// Segments left to fetch, the next one included; nil when unknown (live).
    package var segmentsLeft: Int?
    /// The downloads so far, oldest first.
    package var samples: [ThroughputSample] = []
    /// Seconds of media buffered ahead of the playhead.
    package var buffer: Double
    /// The most the player buffers ahead, seconds.
    package var maxBuffer: Double
    /// The rung of the last segment fetched; nil before the first.
    package var current: Int?
    /// When the rung last changed, on the session's clock; nil: never.
    package var lastSwitchAt: Double?
    /// The session's clock, seconds.
    package var now: Double
    /// Media seconds played per second.
    package var playbackRate: Double = 1
    /// Playback ran dry since the last decision (a stall, or still waiting for data): the
    /// design's "not playable".
    package var isStarved = false
    /// Bits per second before any download: the playlist's own download, or the estimate an
    /// earlier session left; nil: none.
    package var initialEstimate: Double?

    package init(bitrates: [Double], segmentDuration: Double, buffer: Double, maxBuffer: Double, now: Double) {
        self.bitrates = bitrates
        self.segmentDuration = segmentDuration
        self.buffer = buffer
        self.maxBuffer = maxBuffer
        self.now = now
    }

    /// The size in bytes of the segment `ahead` segments from the next, at `rung`.
    package func size(ahead: Int, rung: Int) -> Double {
        if ahead < upcomingSizes.count, rung < upcomingSizes[ahead].count { return upcomingSizes[ahead][rung] }
        return bitrates[rung] / 8 * segmentDuration
    }

    /// The highest rung whose bit rate is at most `bitsPerSecond`; the lowest when none is.
    package func highestRung(within bitsPerSecond: Double) -> Int {
        bitrates.lastIndex { $0 <= bitsPerSecond } ?? 0
    }
}

/// A policy's answer: the rung of the next segment, and how long to wait before fetching it.
package struct ABRDecision: Equatable, Sendable {
    package var rung: Int
    /// Seconds to hold the download back (BOLA's, so as not to fill the buffer with a low rung).
    package var delay: Double

    package init(rung: Int, delay: Double = 0) {
        self.rung = rung
        self.delay = delay
    }
}

/// What policies carry from one decision to the next, as plain values.
package struct ABRMemory: Equatable, Sendable {
    /// BOLA: dash.js's placeholder buffer, seconds, and whether the first segment is still to come.
    package var bolaPlaceholder = 0.0
    package var bolaIsStarting = true
    /// auto: the throughput predicted at each decision, for the error of the ones since measured.
    package var predictions: [Double] = []
    /// auto: whether its last switch went up (nil: none yet).
    package var lastSwitchWasUp: Bool?

    package init() {}
}
