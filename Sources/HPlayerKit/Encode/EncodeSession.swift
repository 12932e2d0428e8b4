import CFFmpeg
import Synchronization

/// What `hplayer encode` does: one source, encoders for its picture and sound, and the files
/// they go to.
package struct EncodeJob: Sendable {
    package var input: String
    /// The demuxer for a capture device or a lavfi graph; nil: guessed from the input.
    package var inputFormat: InputFormat?
    /// The sound from another input (a microphone beside a camera): `input` then gives the
    /// picture only. Both are timed from the earlier of their starts.
    package var audioInput: String?
    package var audioInputFormat: InputFormat?
    package var outputs: [String]
    package var video = VideoEncodeSettings()
    package var audio = AudioEncodeSettings()
    package var hardware = HardwareEncoder.no
    /// Seconds of the source to encode; nil: all of it.
    package var duration: Double?
    package var network = NetworkOptions()
    /// An HLS package made in the same pass, with a video encoding per rung.
    package var package: PackageSettings?
    /// Real-time pushes (rtmp://, srt://).
    package var pushes: [String] = []
    /// Encode no faster than the source plays (ffmpeg's -re): a live package from a file or a
    /// pattern. A capture device is real time by itself.
    package var isPaced = false

    package init(input: String, outputs: [String]) {
        self.input = input
        self.outputs = outputs
    }
}

/// How far an encode has got, for the progress line.
package struct EncodeProgress: Sendable, Equatable {
    /// Pictures encoded (blocks of sound when there is no picture).
    package var frames = 0
    /// How far into the source, in seconds.
    package var position = 0.0
    /// Bytes written to the outputs.
    package var bytes = 0
    /// The source's length, or the asked duration; nil when unknown (a live source).
    package var duration: Double?
}

/// An encode in progress: the engine's source reads and decodes the input (anything hplayer
/// plays, or a capture device), a thread per stream encodes what its track decodes, and every
/// packet goes to each output that takes its kind.
package final class EncodeSession: SourceDelegate, @unchecked Sendable {
    /// The packets read ahead of decoding, at most: the encoder, not the reading, sets the pace.
    static let readAheadBytes = 64 << 20
    package let job: EncodeJob
    /// The input, and the sound's own when it has one: each opens on its read thread, and
    /// encoding starts when the last has opened.
    private let sources: [FFmpegSource]
    /// Sources not open yet, and the start times of those that are.
    private var pendingOpens: Int
    private var openedStarts: [Double] = []
    private var openedDuration: Double?
    private let state = ConditionLock()
    private var outcome: Result<Void, MediaError>?
    private var failure: MediaError?
    private var threads: [JoinableThread] = []
    private var progressValue = EncodeProgress()
    /// Which encoders run, and why those asked for first did not.
    private var encoderLines: [String] = []
    private let stopping = Atomic<Bool>(false)
    /// Encode threads still taking frames: one that is done keeps its track's queue moving until
    /// none is, so the source never waits on it while another track still needs packets.
    private let runningEncodes = Atomic<Int>(0)
    /// `stop` came before the source was open, and aborted the open.
    private var isOpenAborted = false
    /// The tracks encoded: whether any decoded anything is asked at the end.
    private var encodedTracks: [Track] = []
    /// For a paced encode: the monotonic time position 0 is due at, set by the first frame.
    private var pacingOrigin: Double?

    /// The outputs, under their own lock: both encode threads write to them, and the progress
    /// line reads their sizes. It is held over a muxer's write (the file it guards), never over
    /// a call into the source or an encoder.
    private let outputs: Locked<[EncodeOutput]>
    /// What each output takes, known from the start.
    private let takers: [EncodeTaker]
    /// The video encoders and their routes (set on the picture's read thread), the sound's
    /// encoder and its line (on the sound's); both are read once every source has opened.
    private var video = VideoEncoderSet()
    private var audioEncoder: AudioEncoder?
    private var audioLine: String?
    private var videoTrack: Track?
    private var audioTrack: Track?

    package init(job: EncodeJob) throws(MediaError) {
        self.job = job
        guard !job.outputs.isEmpty || job.package != nil || !job.pushes.isEmpty else { throw MediaError(input: job.input, reason: "no output given") }
        var made: [EncodeOutput] = []
        for path in job.outputs { made.append(try makeEncodeOutput(path: path)) }
        if let package = job.package { made.append(try HLSPackage(settings: package)) }
        for url in job.pushes { made.append(try PushOutput(url: url)) }
        outputs = Locked(made)
        takers = made.map(EncodeTaker.init)
        let kinds = made.reduce(into: Set<MediaKind>()) { $0.formUnion($1.kinds) }
        func options(format: InputFormat?, kinds: Set<MediaKind>) -> SourceOptions {
            var options = SourceOptions()
            options.isUntimed = true
            // Encoding reads as fast as it can: live mode's small queues and single decoder thread are for watching.
            options.live.mode = .never
            options.buffering.maximumBufferedDuration = .infinity
            // But not unbounded in memory: a capture or lavfi source's packets are whole pictures.
            options.buffering.maximumBufferedBytes = EncodeSession.readAheadBytes
            options.network = job.network
            options.inputFormat = format
            options.mediaKinds = kinds
            return options
        }
        if let audioInput = job.audioInput {
            sources = [FFmpegSource(url: job.input, options: options(format: job.inputFormat, kinds: kinds.intersection([.video]))),
                       FFmpegSource(url: audioInput, options: options(format: job.audioInputFormat, kinds: kinds.intersection([.audio])))]
        } else {
            sources = [FFmpegSource(url: job.input, options: options(format: job.inputFormat, kinds: kinds))]
        }
        pendingOpens = sources.count
    }

    /// Opens the sources; encoding starts once they are open.
    package func start() { sources.forEach { $0.open(delegate: self) } }

    /// Ends the encode early (Ctrl-C): what was encoded so far is drained and the files finished.
    package func stop() {
        stopping.store(true, ordering: .relaxed)
        // Before the source is open no encode thread hears that: the open is aborted instead
        // (a network input or a device can wait a long time), and fails.
        let abortsOpen = state.withLock { () -> Bool in
            if threads.isEmpty { isOpenAborted = true }
            return threads.isEmpty
        }
        if abortsOpen { sources.forEach { $0.close() } }
    }

    package var progress: EncodeProgress {
        var progress = state.withLock { progressValue }
        progress.bytes = outputs.withLock { $0.reduce(0) { $0 + $1.bytesWritten } }
        return progress
    }

    /// A line per encoder: which one runs, and why one asked for did not.
    package var encoders: [String] { state.withLock { encoderLines } }

    /// Waits for the end: every output finished, or the first error.
    package func wait() throws(MediaError) {
        let result = state.withLock {
            while outcome == nil { state.wait() }
            return outcome!
        }
        state.withLock { threads }.forEach { $0.join() }
        sources.forEach { $0.close() }
        if case .failure(let error) = result { throw error }
    }

    // MARK: SourceDelegate (the source's read thread)

    package func source(_ source: MediaSource, didOpen info: MediaInfo, tracks: [Track], subtitles: [SubtitleTrack]) throws(MediaError) {
        // Each source configures its own tracks before it returns (decoding starts then).
        if let track = tracks.first(where: { $0.kind == .video }) {
            video = try VideoEncoderSet.open(job: job, takers: takers, info: info, track: track)
            if !video.encoders.isEmpty { videoTrack = track }
        }
        if let track = tracks.first(where: { $0.kind == .audio }), let native = track.nativeAudioFormat, takers.contains(where: \.audio) {
            let encoder = try AudioEncoder(settings: job.audio, sourceRate: native.sampleRate, sourceChannels: native.channelCount,
                                           globalHeader: takers.contains { $0.audio && $0.globalHeader })
            track.configureAudio(output: AudioFormat(sampleFormat: .float32, sampleRate: encoder.sampleRate, channelCount: encoder.channelCount))
            audioEncoder = encoder
            audioTrack = track
            audioLine = "audio: aac \(encoder.sampleRate) Hz \(encoder.channelCount) ch \(job.audio.bitRate / 1000) kb/s"
        }
        let isLast = state.withLock { () -> Bool in
            pendingOpens -= 1
            openedStarts.append(info.startTime)
            if let duration = info.duration { openedDuration = max(openedDuration ?? 0, duration) }
            return pendingOpens == 0
        }
        if isLast { try startEncoding() }
    }

    /// Every source is open: the outputs start and a thread per stream encodes.
    private func startEncoding() throws(MediaError) {
        // The other source failed, or a stop came, while this one opened: nothing to start.
        if state.withLock({ outcome != nil }) || stopping.load(ordering: .relaxed) {
            throw MediaError(input: job.input, reason: "interrupted while opening")
        }
        let (origin, sourceDuration) = state.withLock { (openedStarts.min() ?? 0, openedDuration) }
        try outputs.withLock { (outputs) throws(MediaError) in
            for (index, output) in outputs.enumerated() {
                let taken = video.routes.indices.filter { video.routes[$0].contains { $0.output == index } }
                try output.start(video: taken.map { video.encoders[$0] }, audio: audioEncoder)
            }
        }
        let encoded = [videoTrack, audioTrack].compactMap { $0 }
        state.withLock {
            encoderLines = video.lines + [audioLine].compactMap { $0 }
            progressValue.duration = job.duration ?? sourceDuration
            encodedTracks = encoded
        }
        runningEncodes.store(encoded.count, ordering: .relaxed)
        var started: [JoinableThread] = []
        if let track = videoTrack {
            let encoders = video.encoders
            started.append(JoinableThread(name: "hp-encode-video") { [self] in encodeVideo(track, encoders, origin: origin) })
        }
        if let track = audioTrack, let encoder = audioEncoder {
            started.append(JoinableThread(name: "hp-encode-audio") { [self] in encodeAudio(track, encoder, origin: origin) })
        }
        let encoding = started
        let watcher = JoinableThread(name: "hp-encode-end") { [self] in
            encoding.forEach { $0.join() }
            finish()
        }
        state.withLock { threads = encoding + [watcher] }
    }

    package func source(_ source: MediaSource, didFailWith error: MediaError) {
        stopping.store(true, ordering: .relaxed)
        state.withLock {
            let isOpen = !threads.isEmpty
            // An open that `stop` aborted fails with libavformat's "exit requested": say what it was.
            let reported = !isOpen && isOpenAborted ? MediaError(input: job.input, reason: "interrupted while opening") : error
            if failure == nil { failure = reported }
            // Before the open there are no threads to finish the files: the end is now.
            if !isOpen { settle(.failure(failure!)) }
        }
    }

    package func source(_ source: MediaSource, didReplace old: Track, with new: Track) throws(MediaError) {
        throw MediaError(input: source.url, reason: "no switch of stream while encoding")
    }

    package func source(_ source: MediaSource, didEvaluate report: BufferingReport, loadState: LoadState, serial: Int) {}

    // MARK: Encoding

    private func encodeVideo(_ track: Track, _ encoders: [VideoEncoder], origin: Double) {
        let rate = encoders[0].frameRate
        var lastPts = Int64.min
        var frames = 0
        var segmentBoundaries = SegmentBoundaries(duration: job.package?.segmentDuration,
                                                  frameDuration: Double(rate.den) / Double(max(rate.num, 1)))
        run(track, origin: origin) { (frame, position) throws(MediaError) in
            var pts = Int64((position * Double(rate.num) / Double(rate.den)).rounded())
            // A variable frame rate can round two pictures to one number: the later takes the next.
            if pts <= lastPts { pts = lastPts + 1 }
            lastPts = pts
            let startsSegment = segmentBoundaries.startsSegment(at: position)
            for (index, encoder) in encoders.enumerated() {
                try encoder.encode(frame.avFrame, pts: pts, isKeyFrame: startsSegment && video.isRung[index]) { (packet) throws(MediaError) in
                    try write(packet, video: index)
                }
            }
            frames += 1
            state.withLock {
                progressValue.frames = frames
                progressValue.position = max(progressValue.position, position)
            }
        } drain: { () throws(MediaError) in
            for (index, encoder) in encoders.enumerated() {
                try encoder.encode(nil, pts: 0) { (packet) throws(MediaError) in try write(packet, video: index) }
            }
            try outputs.withLock { (outputs) throws(MediaError) in for output in outputs { try output.end(.video) } }
        }
    }

    private func encodeAudio(_ track: Track, _ encoder: AudioEncoder, origin: Double) {
        let countsFrames = videoTrack == nil
        var blocks = 0
        run(track, origin: origin) { (frame, position) throws(MediaError) in
            guard let samples = frame.plane(0) else { return }
            let pts = Int64((max(position, 0) * Double(encoder.sampleRate)).rounded())
            let start = UnsafeRawPointer(samples).assumingMemoryBound(to: Float.self) + frame.consumedSamples * encoder.channelCount
            try encoder.encode(start, count: frame.sampleCount - frame.consumedSamples, pts: pts) { (packet) throws(MediaError) in
                try writeAudio(packet)
            }
            blocks += 1
            state.withLock {
                if countsFrames { progressValue.frames = blocks }
                progressValue.position = max(progressValue.position, position)
            }
        } drain: { () throws(MediaError) in
            try encoder.finish { (packet) throws(MediaError) in try writeAudio(packet) }
            try outputs.withLock { (outputs) throws(MediaError) in for output in outputs { try output.end(.audio) } }
        }
    }

    /// Takes `track`'s frames in order until it ends, the asked duration is reached or the
    /// encode stops, handing each to `encode` with its position from `origin`; then `drain`.
    private func run(_ track: Track, origin: Double, encode: (Frame, Double) throws(MediaError) -> Void,
                     drain: () throws(MediaError) -> Void) {
        do {
            while !stopping.load(ordering: .relaxed) {
                guard let frame = track.popFrame(blocking: true, deadline: MonotonicClock.now() + 0.05) else {
                    if track.hasFinishedDecoding(serial: 0), track.queuedFrameCount == 0 || track.isFrameQueueClosed { break }
                    continue
                }
                defer { track.recycle(frame) }
                let position = frame.pts - origin
                if let duration = job.duration, position >= duration { break }
                if job.isPaced { waitUntilDue(position) }
                try encode(frame, position)
            }
            try drain()
        } catch {
            state.withLock { if failure == nil { failure = error } }
            stopping.store(true, ordering: .relaxed)
        }
        runningEncodes.subtract(1, ordering: .relaxed)
        while runningEncodes.load(ordering: .relaxed) > 0, !stopping.load(ordering: .relaxed) {
            if let frame = track.popFrame(blocking: true, deadline: MonotonicClock.now() + 0.05) { track.recycle(frame) }
        }
    }

    /// Sleeps until `position` is due on the clock the first frame started (in short naps, so a
    /// stop is heard).
    private func waitUntilDue(_ position: Double) {
        let due = state.withLock { () -> Double in
            if pacingOrigin == nil { pacingOrigin = MonotonicClock.now() - position }
            return pacingOrigin! + position
        }
        while !stopping.load(ordering: .relaxed), MonotonicClock.now() < due {
            MonotonicClock.sleep(until: min(due, MonotonicClock.now() + 0.1))
        }
    }

    /// A packet of video encoder `index`, to each output that takes that encoding.
    private func write(_ packet: UnsafeMutablePointer<AVPacket>, video index: Int) throws(MediaError) {
        let routes = video.routes[index]
        try outputs.withLock { (outputs) throws(MediaError) in
            for route in routes { try outputs[route.output].write(packet, kind: .video, encoding: route.encoding) }
        }
    }

    private func writeAudio(_ packet: UnsafeMutablePointer<AVPacket>) throws(MediaError) {
        try outputs.withLock { (outputs) throws(MediaError) in
            for output in outputs where output.kinds.contains(.audio) { try output.write(packet, kind: .audio, encoding: 0) }
        }
    }

    /// Every encode thread has ended: the files are finished (a failed encode's too, so what was
    /// encoded stays playable), and the outcome told.
    private func finish() {
        var finishFailure: MediaError?
        outputs.withLock { outputs in
            for output in outputs {
                do throws(MediaError) { try output.finish() } catch { if finishFailure == nil { finishFailure = error } }
            }
        }
        let tracks = state.withLock { encodedTracks }
        // As the player: media in which nothing decodes, or whose reading failed, is an error.
        let reasons = tracks.compactMap(\.nothingDecodedReason)
        let nothingDecoded = !tracks.isEmpty && reasons.count == tracks.count ? MediaError(input: job.input, reason: reasons[0]) : nil
        let readFailure = sources.lazy.compactMap(\.readFailure).first
        state.withLock {
            if let error = failure ?? finishFailure ?? nothingDecoded ?? readFailure { settle(.failure(error)) } else { settle(.success(())) }
        }
    }

    /// Under `state`.
    private func settle(_ result: Result<Void, MediaError>) {
        if outcome == nil { outcome = result }
        state.broadcast()
    }
}
