/// Keeps one stream's timeline continuous, as the read loop hands its packets on: across loop
/// passes, and across jumps in its timestamps (an HLS discontinuity, a spliced transport stream),
/// which would otherwise stall playback for as long as the jump or send it back.
struct StreamTimeline: Equatable {
    /// How far a stream's decode timestamps may move, in seconds, from where its last packet
    /// ended before it counts as a jump.
    struct Limits: Equatable {
        var forward: Double
        var backward: Double

        /// 10 s forward or 1 s back for formats FFmpeg marks as having discontinuities (MPEG-TS,
        /// HLS); 60 s or 10 s for the others, where only a broken file jumps.
        init(formatHasDiscontinuities: Bool) {
            forward = formatHasDiscontinuities ? 10 : 60
            backward = formatHasDiscontinuities ? 1 : 10
        }

        init(forward: Double, backward: Double) {
            self.forward = forward
            self.backward = backward
        }
    }

    private(set) var segment = TimelineSegment()
    /// Where the next packet should start on the timeline, once one has been seen.
    private var expectedNext: Int64?

    /// The segment for a packet of stream `stream` with decode timestamp `dts` (nil when it has
    /// none) lasting `duration` ticks. A jump past the limits starts a new segment: the first
    /// stream to jump is shifted so its packet lands where its last one ended, and the others
    /// take the same shift when they jump there too, so picture and sound stay as aligned as
    /// the media has them.
    mutating func place(stream: Int, dts: Int64?, duration: Int64, timeBase: TimeBase, limits: Limits,
                        lastJump: inout TimestampJump?) -> TimelineSegment {
        guard let dts else { return segment }
        let timeline = dts + segment.offset
        if let expected = expectedNext,
           timeline > expected + timeBase.ticks(limits.forward) || timeline < expected - timeBase.ticks(limits.backward) {
            let target = timeBase.seconds(dts) ?? 0
            let shift: Int64
            if var jump = lastJump, !jump.streams.contains(stream), abs(jump.target - target) <= limits.forward {
                shift = timeBase.ticks(jump.shift)
                jump.streams.insert(stream)
                lastJump = jump
            } else {
                shift = expected - timeline
                lastJump = TimestampJump(target: target, shift: timeBase.seconds(shift) ?? 0, streams: [stream])
            }
            segment.offset += shift
            segment.start = dts + segment.offset
        }
        expectedNext = dts + segment.offset + max(duration, 0)
        return segment
    }

    /// How far from where its stream stood a packet must land to be held back until the next
    /// one shows whether it alone is out of line (a bad timestamp) or the stream moved with it (a
    /// gap or a jump).
    static let outlierDistance = 1.0

    /// Whether a packet with decode timestamp `dts` lands `outlierDistance` or further from where
    /// the stream's last packet ended.
    func isOutOfLine(dts: Int64?, timeBase: TimeBase) -> Bool {
        guard let dts, let expected = expectedNext else { return false }
        let distance = dts + segment.offset - expected
        return distance.magnitude > timeBase.ticks(Self.outlierDistance).magnitude
    }

    /// The ticks that move a packet stamped `dts` to where the stream's last packet ended: the
    /// repair of a lone bad timestamp.
    func correction(toLineFrom dts: Int64) -> Int64 {
        guard let expected = expectedNext else { return 0 }
        return expected - (dts + segment.offset)
    }

    /// A loop pass begins: timestamps start over, shifted by `loopOffset` ticks.
    mutating func startPass(_ pass: Int, loopOffset: Int64, startTicks: Int64) {
        segment = TimelineSegment(offset: loopOffset, loopOffset: loopOffset, loopPass: pass, start: startTicks + loopOffset)
        expectedNext = nil
    }

    /// The part of the shift that keeps the timeline continuous across jumps (not looping).
    var discontinuityOffset: Int64 { segment.offset - segment.loopOffset }
}

/// The latest jump in the source's timestamps: where the raw timestamps went (seconds), the
/// shift that keeps the timeline continuous, and the streams that have taken it.
struct TimestampJump: Equatable {
    var target: Double
    var shift: Double
    var streams: Set<Int>
}

/// What the read loop keeps for one track.
struct TrackReadState {
    var timeline = StreamTimeline()
    let limits: StreamTimeline.Limits
    /// Where the track's latest packet ends on the timeline (seconds), since the last seek.
    var lastPacketEnd: Double?
    /// Where the latest key frame read starts on the timeline (seconds), since the last seek:
    /// where a live jump would land; and when it decodes (its dts), to tell whether it is queued still.
    var lastKeyFrame: Double?
    var lastKeyFrameDecodeTime: Double?
    /// When the latest packet was read, or reading (re)started (monotonic): live, a track whose
    /// queues are dry is starved only once nothing of it has come for a while.
    var lastArrival = MonotonicClock.now()
    /// The stream ended before the file did: its end marker has been sent.
    var hasEnded = false
    /// A packet that landed out of line, held until the next one of its stream says whether it
    /// was alone (its timestamps are then repaired) or the stream jumped with it.
    var heldPacket: Packet?
    /// Where an audio stream ends, in seconds as the container declares it (nil when it does
    /// not): the end marker follows the packet that reaches it, so a soundtrack shorter than its
    /// picture ends on time. (Not for video: its packets come in decode order, so the one that
    /// reaches the end may not be the last.)
    let declaredAudioEnd: Double?

    init(limits: StreamTimeline.Limits, declaredAudioEnd: Double?) {
        self.limits = limits
        self.declaredAudioEnd = declaredAudioEnd
    }

    /// Back to the start of a serial (after a seek).
    mutating func reset() { self = TrackReadState(limits: limits, declaredAudioEnd: declaredAudioEnd) }
}
