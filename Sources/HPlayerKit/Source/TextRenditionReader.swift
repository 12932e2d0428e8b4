import Synchronization

/// A text rendition played alongside (a DASH text AdaptationSet, an HLS SUBTITLES rendition):
/// a thread of its own reads its segments through its own segment stream, so the I/O layer's
/// retries, cache and stats apply, and makes them into its track's cues: fragmented MP4
/// samples (TextSampleStream), or WebVTT files a segment each (WebVTTSegments). It keeps
/// `readAhead` seconds ahead of where the read loop is, and follows its seeks; a failure ends
/// its cues, never the playback.
///
/// Unchecked: `stream` is its thread's alone, but for `cancel` (thread-safe) at close; the
/// control state is under `control`; the read position and discontinuity are atomic.
final class TextRenditionReader: @unchecked Sendable {
    let track: SubtitleTrack
    /// How far past the read position its cues are read, seconds.
    let readAhead: Double
    /// How long it waits, idle, before looking at the read position again.
    static let idleInterval = 0.25

    private struct Control {
        /// Seconds from the presentation's start to read from anew (a seek), until taken.
        var seek: Double?
        var isClosing = false
        /// The media seconds read without a break: cues are known from `loadedFrom` up to `readUntil`.
        var loadedFrom = -Double.infinity
        var readUntil = -Double.infinity
        /// No more cues come until a seek: the stream ended or failed.
        var hasEnded = false
        /// Where the media's discontinuities land on the timeline (WebVTT's timestamp maps).
        var shifts = DiscontinuityShifts(startingAt: 0)
        /// The discontinuity WebVTT segments wait for the read loop to place: while its shift
        /// is not known, the read loop is not held up for them, or neither would move.
        var waitingDiscontinuity: Int?
    }

    private let control = ConditionLock()
    private var controlState = Control()
    private var thread: JoinableThread?
    /// Where the read loop is, media seconds (a bit pattern): written for every packet, so not under a lock.
    private let readPosition = Atomic<UInt64>(0.0.bitPattern)
    /// The discontinuity sequence number of the media being read (-1: none), as `readPosition`.
    private let readDiscontinuity = Atomic<Int>(-1)
    private let stream: SegmentStream
    private let name: String
    private let startTime: Double

    /// Starts reading `url` (a rendition's resolved URL) into a track described by `description`.
    /// `startTime`: the media seconds the presentation starts at (a seek's 0).
    /// `discontinuity`: the one the media's timeline starts on.
    init(url: String, description: SubtitleTrackDescription, network: NetworkOptions, startTime: Double, discontinuity: Int = 0,
         readAhead: Double = 30) {
        track = SubtitleTrack(description: description)
        self.readAhead = readAhead
        stream = SegmentStream(url: url, options: network)
        stream.endsSectionAtEachSegment = true
        name = description.title.map { "\"\($0)\"" } ?? "the text rendition"
        self.startTime = startTime
        readPosition.store(startTime.bitPattern, ordering: .relaxed)
        controlState.shifts = DiscontinuityShifts(startingAt: discontinuity)
        let thread = JoinableThread(name: "hp-text") { [self] in run() }
        control.withLock { self.thread = thread }
    }

    /// The read loop placed a packet at `seconds` (media time, on the playback timeline), read
    /// from a segment of `discontinuity` (nil: not an HLS stream's).
    func noteReadPosition(_ seconds: Double, discontinuity: Int?) {
        readPosition.store(seconds.bitPattern, ordering: .relaxed)
        guard let discontinuity, readDiscontinuity.exchange(discontinuity, ordering: .releasing) < 0 else { return }
        // The first packet since the open or a seek: WebVTT waits for it to know where the media is.
        control.withLock { control.broadcast() }
    }

    /// The read loop's timeline jumped at a packet of `discontinuity`: its timestamps are
    /// shifted by `shift` seconds.
    func noteTimelineJump(discontinuity: Int, shift: Double) {
        control.withLock {
            controlState.shifts.noteJump(discontinuity, shift: shift)
            control.broadcast()
        }
    }

    /// The presentation seeks to `seconds` from its start, its timeline starting over on
    /// `discontinuity`. Within what was read without a break, reading goes on; elsewhere it
    /// starts anew there.
    func seek(to seconds: Double, discontinuity: Int) {
        let target = startTime + seconds
        control.withLock {
            // Under the lock, with the new map: a lookup made meanwhile sees the read position
            // of before the seek with the map of before, or none of it.
            readPosition.store(target.bitPattern, ordering: .relaxed)
            readDiscontinuity.store(-1, ordering: .relaxed)
            controlState.shifts = DiscontinuityShifts(startingAt: discontinuity)
            let state = controlState
            guard state.seek != nil || !(state.loadedFrom...max(state.loadedFrom, state.readUntil)).contains(target) else { return }
            controlState.seek = seconds
            controlState.loadedFrom = target
            controlState.readUntil = -.infinity
            controlState.hasEnded = false
            control.broadcast()
        }
    }

    /// Waits until the cues up to media time `seconds` are read, the rendition has no more, or
    /// `deadline` (monotonic seconds) passes; false then.
    func waitForCues(through seconds: Double, until deadline: Double) -> Bool {
        control.withLock {
            while controlState.readUntil < seconds && !controlState.hasEnded && !controlState.isClosing && !waitsOnReadLoop() {
                guard control.wait(until: deadline) else { return false }
            }
            return true
        }
    }

    /// Whether the cues wait for where a discontinuity lands, not yet known (under `control`).
    private func waitsOnReadLoop() -> Bool {
        guard let discontinuity = controlState.waitingDiscontinuity else { return false }
        return controlState.shifts.shift(for: discontinuity, position: Double(bitPattern: readPosition.load(ordering: .relaxed))) == nil
    }

    /// Stops reading and joins the thread; the track keeps its cues. Once: a second call
    /// returns at once.
    func close() {
        let thread = control.withLock { () -> JoinableThread? in
            guard !controlState.isClosing else { return nil }
            controlState.isClosing = true
            control.broadcast()
            return self.thread
        }
        guard let thread else { return }
        stream.cancel()
        thread.join()
        stream.close()
    }

    // MARK: The thread

    private func run() {
        do {
            try stream.open(at: 0)
        } catch {
            Log.source.warning("\(error.input): \(error.reason); no subtitles from \(name)")
            control.withLock {
                controlState.hasEnded = true
                control.broadcast()
            }
            return
        }
        var reading = Reading(startTime: startTime)
        reading.begin(stream.segmentBeingRead, anchor: startTime)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let (seek, isClosing, hasEnded) = control.withLock { () -> (Double?, Bool, Bool) in
                defer { controlState.seek = nil }
                return (controlState.seek, controlState.isClosing, controlState.hasEnded)
            }
            if isClosing { return }
            if let seek {
                reading.reset()
                do {
                    _ = try stream.prepareSeek(toTime: seek)
                    let segment = stream.segmentBeingRead
                    reading.begin(segment, anchor: startTime + (segment?.start ?? seek))
                } catch {
                    Log.source.warning("\(error.input): \(error.reason); no more subtitles from \(name)")
                    end()
                }
                continue
            }
            let position = Double(bitPattern: readPosition.load(ordering: .relaxed))
            if reading.webVTT.isWaiting { publish(reading.resolveWebVTT(shiftLookup()), reading: reading) }
            if hasEnded || reading.aheadUntil(isWebVTT: !stream.isSectioned) > position + readAhead {
                control.withLock {
                    if controlState.seek == nil && !controlState.isClosing { control.wait(until: MonotonicClock.now() + Self.idleInterval) }
                }
                continue
            }
            let count: Int
            do {
                count = try stream.read(into: buffer)
            } catch {
                if control.withLock({ controlState.isClosing }) { return }
                Log.source.warning("\(error.input): \(error.reason); no more subtitles from \(name)")
                end()
                continue
            }
            if count == 0 {
                if !stream.isSectioned { reading.finishWebVTTSegment(url: stream.url) }
                if stream.isAtSectionEnd {
                    stream.beginSection()
                    reading.begin(stream.segmentBeingRead, anchor: nil)
                } else {
                    publish(reading.resolveWebVTT(shiftLookup()), reading: reading)
                    end()
                }
                continue
            }
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
            if stream.isSectioned {
                reading.samples.timeOffset = stream.sectionTimeOffset
                publish(reading.samples.append(bytes), reading: reading)
                if let problem = reading.samples.takeProblem() { reading.tell(problem, url: stream.url) }
            } else {
                reading.segmentBytes.append(contentsOf: bytes)
            }
        }
    }

    /// A discontinuity's shift as the read loop has found it so far, and where it reads. None
    /// before the read loop has placed a packet since the open or the seek: until then, where
    /// the media is read (which turn of a timestamp wrap) is not known.
    private func shiftLookup() -> (near: Double, shift: (Int) -> Double?) {
        // Read under the lock that a seek changes them under, so that the discontinuity noted is
        // one of the map it is noted in.
        let (position, shifts) = control.withLock { () -> (Double, DiscontinuityShifts?) in
            // The discontinuity first: the position stored before it is then seen.
            let discontinuity = readDiscontinuity.load(ordering: .acquiring)
            let position = Double(bitPattern: readPosition.load(ordering: .relaxed))
            guard discontinuity >= 0 else { return (position, nil) }
            controlState.shifts.noteReading(discontinuity, at: position)
            return (position, controlState.shifts)
        }
        guard let shifts else { return (position, { _ in nil }) }
        return (position, { shifts.shift(for: $0, position: position) })
    }

    /// Adds `cues` to the track and moves the cues known up to where `reading` has them.
    private func publish(_ cues: [SubtitleCue], reading: Reading) {
        for cue in cues { track.add(cue) }
        control.withLock {
            // What was read before a seek asked for is not what it needs.
            guard controlState.seek == nil else { return }
            controlState.readUntil = reading.readUntil
            controlState.waitingDiscontinuity = reading.webVTT.waitingDiscontinuity
            control.broadcast()
        }
    }

    /// No more cues until a seek (unless one is already asked for).
    private func end() {
        control.withLock {
            guard controlState.seek == nil else { return }
            controlState.hasEnded = true
            control.broadcast()
        }
    }
}

/// A text reader thread's own: what it has read of its rendition.
private struct Reading {
    var samples = TextSampleStream()
    var webVTT: WebVTTSegments
    /// The WebVTT segment being read: its bytes so far, its discontinuity, where its span ends.
    var segmentBytes: [UInt8] = []
    var segment: (discontinuity: Int, end: Double)?
    /// Media seconds where the next segment's span starts: where reading began (the open, a
    /// seek) and the durations of the segments since (a live playlist's window moves).
    var nextStart: Double
    var told: Set<String> = []

    init(startTime: Double) {
        webVTT = WebVTTSegments(startTime: startTime)
        nextStart = startTime
    }

    /// Where the cues are known up to, media seconds.
    var readUntil: Double { max(samples.readUntil, webVTT.readUntil) }

    /// How far ahead reading has gone: for WebVTT, segments waiting included.
    func aheadUntil(isWebVTT: Bool) -> Double { isWebVTT ? nextStart : samples.readUntil }

    mutating func reset() {
        samples.reset()
        webVTT.reset()
        segmentBytes.removeAll(keepingCapacity: true)
        segment = nil
    }

    /// A segment begins: its span from `anchor` (media seconds) after an open or a seek, else
    /// from where the last one's ended.
    mutating func begin(_ being: (segment: HLSSegment, start: Double)?, anchor: Double?) {
        segmentBytes.removeAll(keepingCapacity: true)
        if let anchor { nextStart = anchor }
        guard let being else {
            segment = nil
            return
        }
        nextStart += being.segment.duration
        segment = (being.segment.discontinuitySequence, nextStart)
    }

    /// The WebVTT segment has been read whole: it waits for its place on the timeline.
    mutating func finishWebVTTSegment(url: String) {
        guard let segment else { return }
        defer {
            segmentBytes.removeAll(keepingCapacity: true)
            self.segment = nil
        }
        do throws(WebVTTDocument.NotWebVTT) {
            let document = try webVTT.append(segmentBytes, discontinuity: segment.discontinuity, end: segment.end)
            if document.skippedBlocks > 0 { tell("\(document.skippedBlocks) blocks that are neither cues nor notes", url: url) }
        } catch {
            tell("a segment that is not WebVTT (\(error.reason))", url: url)
            webVTT.appendNothing(discontinuity: segment.discontinuity, end: segment.end)
        }
    }

    mutating func resolveWebVTT(_ lookup: (near: Double, shift: (Int) -> Double?)) -> [SubtitleCue] {
        webVTT.resolve(near: lookup.near, shift: lookup.shift)
    }

    /// A problem with the rendition's bytes, told once each, five at most.
    mutating func tell(_ problem: String, url: String) {
        guard told.count < 5, told.insert(problem).inserted else { return }
        Log.source.warning("\(url): \(problem); those subtitles are left out")
    }
}
