/// `hplayer bench`: every packet read, decoded and handed through the queues to a consumer with
/// no clock, as fast as it goes. Measures the pipeline itself, for comparison with
/// `ffmpeg -f null`.
package enum DecodeBenchmark {
    package struct Result: Sendable, Equatable {
        /// Video frames, or audio frames when there is no video.
        package var frames: Int
        package var videoFrames: Int
        package var audioFrames: Int
        package var seconds: Double
        package var framesPerSecond: Double { seconds > 0 ? Double(frames) / seconds : 0 }
        /// Packet and frame wrappers made: stays near the queue capacities however long the media.
        package var pooledObjects: Int
    }

    /// Bounds on one run: a fuzzing input is decoded for at most so many frames of each stream,
    /// and so many seconds.
    package struct Limits: Sendable {
        package var frames: Int
        package var seconds: Double

        package init(frames: Int, seconds: Double) {
            self.frames = frames
            self.seconds = seconds
        }
    }

    /// - Parameters:
    ///   - input: the bytes to read through the I/O layer; nil: libavformat opens `url` itself.
    ///   - limits: where to stop before the end; nil: at the end.
    package static func run(url: String, options: SourceOptions = SourceOptions(), input: ByteSource? = nil,
                           limits: Limits? = nil) throws(MediaError) -> Result {
        var options = options
        // Read as fast as decoding takes: the packet queues' own capacity is the bound.
        options.buffering.maximumBufferedDuration = .infinity
        options.buffering.maximumBufferedBytes = .max
        let started = MonotonicClock.now()
        let source = FFmpegSource(url: url, options: options, input: input)
        let delegate = BenchDelegate(limits: limits, deadline: limits.map { started + $0.seconds })
        source.open(delegate: delegate)
        let outcome = delegate.waitForEnd()
        let seconds = MonotonicClock.now() - started
        source.close()
        switch outcome {
        case .failure(let error):
            throw error
        case .success(let counts):
            if let reason = counts.nothingDecoded { throw MediaError(input: url, reason: reason) }
            return Result(frames: counts.video > 0 ? counts.video : counts.audio, videoFrames: counts.video,
                          audioFrames: counts.audio, seconds: seconds, pooledObjects: counts.pooled)
        }
    }
}

/// Configures the tracks to take any format and drains each frame queue on a thread of its own.
private final class BenchDelegate: SourceDelegate, @unchecked Sendable {
    struct Counts {
        var video = 0
        var audio = 0
        var pooled = 0
        /// Why nothing decoded, when no stream decoded a frame.
        var nothingDecoded: String?
    }

    private let lock = ConditionLock()
    private var outcome: Result<Counts, MediaError>?
    private var consumers: [JoinableThread] = []
    private var tracks: [Track] = []
    private var finishedCounts = Counts()
    private let frameLimit: Int
    private let deadline: Double

    init(limits: DecodeBenchmark.Limits?, deadline: Double?) {
        frameLimit = limits?.frames ?? .max
        self.deadline = deadline ?? .infinity
    }

    /// The benchmark plays the streams it opened with.
    func source(_ source: MediaSource, didReplace old: Track, with new: Track) throws(MediaError) {
        throw MediaError(input: source.url, reason: "no switch of stream in a benchmark")
    }

    func source(_ source: MediaSource, didOpen info: MediaInfo, tracks: [Track], subtitles: [SubtitleTrack]) throws(MediaError) {
        for track in tracks {
            switch track.kind {
            case .video: track.configureVideo(acceptedPixelFormats: nil)
            case .audio: track.configureAudio(output: track.nativeAudioFormat!)
            }
        }
        let threads = tracks.map { track in
            JoinableThread(name: "hp-bench-\(track.kind.rawValue)") { [self] in consume(track) }
        }
        lock.withLock {
            self.tracks = tracks
            consumers = threads
        }
        let watcher = JoinableThread(name: "hp-bench-end") { [self] in
            threads.forEach { $0.join() }
            let counts = lock.withLock { () -> Counts in
                var counts = finishedCounts
                counts.pooled = self.tracks.reduce(0) { $0 + $1.pooledObjectCount }
                let reasons = self.tracks.compactMap(\.nothingDecodedReason)
                if !self.tracks.isEmpty, reasons.count == self.tracks.count { counts.nothingDecoded = reasons[0] }
                return counts
            }
            finish(.success(counts))
        }
        lock.withLock { consumers.append(watcher) }
    }

    func source(_ source: MediaSource, didFailWith error: MediaError) { finish(.failure(error)) }

    func source(_ source: MediaSource, didEvaluate report: BufferingReport, loadState: LoadState, serial: Int) {}

    private func consume(_ track: Track) {
        var count = 0
        while count < frameLimit, MonotonicClock.now() < deadline {
            // Taken half a queue at a time, as an output with a buffer of its own would, rather than
            // waking for each frame as it is decoded.
            if let frame = track.popFrame(blocking: true, deadline: MonotonicClock.now() + 0.01, batch: track.frameQueueCapacity / 2) {
                count += 1
                track.recycle(frame)
            } else if track.hasFinishedDecoding(serial: 0), track.queuedFrameCount == 0 || track.isFrameQueueClosed {
                break
            }
        }
        lock.withLock {
            switch track.kind {
            case .video: finishedCounts.video = count
            case .audio: finishedCounts.audio = count
            }
        }
    }

    private func finish(_ result: Result<Counts, MediaError>) {
        lock.withLock {
            if outcome == nil { outcome = result }
            lock.broadcast()
        }
    }

    func waitForEnd() -> Result<Counts, MediaError> {
        let result = lock.withLock {
            while outcome == nil { lock.wait() }
            return outcome!
        }
        lock.withLock { consumers }.forEach { $0.join() }
        return result
    }
}
