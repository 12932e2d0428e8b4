import Synchronization

/// A text rendition played alongside (a DASH text AdaptationSet): a thread of its own reads its
/// segments through its own segment stream, so the I/O layer's retries, cache and stats apply,
/// and makes their samples into its track's cues. It keeps `readAhead` seconds ahead of where
/// the read loop is, and follows its seeks; a failure ends its cues, never the playback.
///
/// Unchecked: `stream` is its thread's alone, but for `cancel` (thread-safe) at close; the
/// control state is under `control`; the read position is atomic.
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
    }

    private let control = ConditionLock()
    private var controlState = Control()
    private var thread: JoinableThread?
    /// Where the read loop is, media seconds (a bit pattern): written for every packet, so not under a lock.
    private let readPosition = Atomic<UInt64>(0.0.bitPattern)
    private let stream: SegmentStream
    private let name: String
    private let startTime: Double

    /// Starts reading `url` (a rendition's resolved URL) into a track described by `description`.
    /// `startTime`: the media seconds the presentation starts at (a seek's 0).
    init(url: String, description: SubtitleTrackDescription, network: NetworkOptions, startTime: Double, readAhead: Double = 30) {
        track = SubtitleTrack(description: description)
        self.readAhead = readAhead
        stream = SegmentStream(url: url, options: network)
        name = description.title.map { "\"\($0)\"" } ?? "the text rendition"
        self.startTime = startTime
        readPosition.store(startTime.bitPattern, ordering: .relaxed)
        let thread = JoinableThread(name: "hp-text") { [self] in run() }
        control.withLock { self.thread = thread }
    }

    /// The read loop read a packet stamped `seconds` (media time).
    func noteReadPosition(_ seconds: Double) {
        readPosition.store(seconds.bitPattern, ordering: .relaxed)
    }

    /// The presentation seeks to `seconds` from its start. Within what was read without a
    /// break, reading goes on; elsewhere it starts anew there.
    func seek(to seconds: Double) {
        let target = startTime + seconds
        readPosition.store(target.bitPattern, ordering: .relaxed)
        control.withLock {
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
            while controlState.readUntil < seconds && !controlState.hasEnded && !controlState.isClosing {
                guard control.wait(until: deadline) else { return false }
            }
            return true
        }
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
        var samples = TextSampleStream()
        var told: Set<String> = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let (seek, isClosing, hasEnded) = control.withLock { () -> (Double?, Bool, Bool) in
                defer { controlState.seek = nil }
                return (controlState.seek, controlState.isClosing, controlState.hasEnded)
            }
            if isClosing { return }
            if let seek {
                samples.reset()
                do {
                    _ = try stream.prepareSeek(toTime: seek)
                } catch {
                    Log.source.warning("\(error.input): \(error.reason); no more subtitles from \(name)")
                    end()
                }
                continue
            }
            let position = Double(bitPattern: readPosition.load(ordering: .relaxed))
            if hasEnded || samples.readUntil > position + readAhead {
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
                if stream.isAtSectionEnd { stream.beginSection() } else { end() }
                continue
            }
            samples.timeOffset = stream.sectionTimeOffset
            for cue in samples.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) { track.add(cue) }
            if let problem = samples.takeProblem(), told.count < 5, told.insert(problem).inserted {
                Log.source.warning("\(stream.url): \(problem); those subtitles are left out")
            }
            control.withLock {
                // What was read before a seek asked for is not what it needs.
                guard controlState.seek == nil else { return }
                controlState.readUntil = samples.readUntil
                control.broadcast()
            }
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
