import CFFmpeg
import Synchronization

/// What `hplayer encode` does: one source, encoders for its picture and sound, and the files
/// they go to.
public struct EncodeJob: Sendable {
    public var input: String
    /// The demuxer for a capture device or a lavfi graph; nil: guessed from the input.
    public var inputFormat: InputFormat?
    public var outputs: [String]
    public var video = VideoEncodeSettings()
    public var audio = AudioEncodeSettings()
    public var hardware = HardwareEncoder.no
    /// Seconds of the source to encode; nil: all of it.
    public var duration: Double?
    public var network = NetworkOptions()
    /// An HLS package made in the same pass, with a video encoding per rung.
    public var package: PackageSettings?
    /// Real-time pushes (rtmp://, srt://).
    public var pushes: [String] = []
    /// Encode no faster than the source plays (ffmpeg's -re): a live package from a file or a
    /// pattern. A capture device is real time by itself.
    public var isPaced = false

    public init(input: String, outputs: [String]) {
        self.input = input
        self.outputs = outputs
    }
}

/// How far an encode has got, for the progress line.
public struct EncodeProgress: Sendable, Equatable {
    /// Pictures encoded (blocks of sound when there is no picture).
    public var frames = 0
    /// How far into the source, in seconds.
    public var position = 0.0
    /// Bytes written to the outputs.
    public var bytes = 0
    /// The source's length, or the asked duration; nil when unknown (a live source).
    public var duration: Double?
}

/// An encode in progress: the engine's source reads and decodes the input (anything hplayer
/// plays, or a capture device), a thread per stream encodes what its track decodes, and every
/// packet goes to each output that takes its kind.
public final class EncodeSession: SourceDelegate, @unchecked Sendable {
    public let job: EncodeJob
    private let source: FFmpegSource
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
    /// The main video encoding (for `-o` files) and a package's rungs, each encoding every picture.
    private var videoEncoders: [VideoEncoder] = []
    private var audioEncoder: AudioEncoder?
    /// For each video encoder, the outputs it writes to and its place among their encodings.
    private var videoRoutes: [[(output: Int, encoding: Int)]] = []
    /// For each video encoder, whether it is a package's rung (its segments' first pictures are IDRs).
    private var isRung: [Bool] = []

    public init(job: EncodeJob) throws(MediaError) {
        self.job = job
        guard !job.outputs.isEmpty || job.package != nil || !job.pushes.isEmpty else { throw MediaError(input: job.input, reason: "no output given") }
        var made: [EncodeOutput] = []
        for path in job.outputs { made.append(try makeEncodeOutput(path: path)) }
        if let package = job.package { made.append(try HLSPackage(settings: package)) }
        for url in job.pushes { made.append(try PushOutput(url: url)) }
        outputs = Locked(made)
        var options = SourceOptions()
        options.isUntimed = true
        options.buffering.maximumBufferedDuration = .infinity
        options.network = job.network
        options.inputFormat = job.inputFormat
        options.mediaKinds = made.reduce(into: Set<MediaKind>()) { $0.formUnion($1.kinds) }
        source = FFmpegSource(url: job.input, options: options)
    }

    /// Opens the source; encoding starts once it is open.
    public func start() { source.open(delegate: self) }

    /// Ends the encode early (Ctrl-C): what was encoded so far is drained and the files finished.
    public func stop() {
        stopping.store(true, ordering: .relaxed)
        // Before the source is open no encode thread hears that: the open is aborted instead
        // (a network input or a device can wait a long time), and fails.
        let abortsOpen = state.withLock { () -> Bool in
            if threads.isEmpty { isOpenAborted = true }
            return threads.isEmpty
        }
        if abortsOpen { source.close() }
    }

    public var progress: EncodeProgress {
        var progress = state.withLock { progressValue }
        progress.bytes = outputs.withLock { $0.reduce(0) { $0 + $1.bytesWritten } }
        return progress
    }

    /// A line per encoder: which one runs, and why one asked for did not.
    public var encoders: [String] { state.withLock { encoderLines } }

    /// Waits for the end: every output finished, or the first error.
    public func wait() throws(MediaError) {
        let result = state.withLock {
            while outcome == nil { state.wait() }
            return outcome!
        }
        state.withLock { threads }.forEach { $0.join() }
        source.close()
        if case .failure(let error) = result { throw error }
    }

    // MARK: SourceDelegate (the source's read thread)

    public func source(_ source: MediaSource, didOpen info: MediaInfo, tracks: [Track], subtitles: [SubtitleTrack]) throws(MediaError) {
        let video = tracks.first { $0.kind == .video }
        let audio = tracks.first { $0.kind == .audio }
        let lines = try openEncoders(info: info, video: video, audio: audio)
        try outputs.withLock { (outputs) throws(MediaError) in
            for (index, output) in outputs.enumerated() {
                let taken = videoRoutes.indices.filter { videoRoutes[$0].contains { $0.output == index } }
                try output.start(video: taken.map { videoEncoders[$0] }, audio: audioEncoder)
            }
        }
        state.withLock { encoderLines = lines }
        let origin = info.startTime
        let duration = job.duration ?? info.duration
        state.withLock { progressValue.duration = duration }
        var started: [JoinableThread] = []
        let encoded = [videoEncoders.isEmpty ? nil : video, audioEncoder == nil ? nil : audio].compactMap { $0 }
        state.withLock { encodedTracks = encoded }
        runningEncodes.store(encoded.count, ordering: .relaxed)
        if let video, !videoEncoders.isEmpty {
            let encoders = videoEncoders
            started.append(JoinableThread(name: "hp-encode-video") { [self] in encodeVideo(video, encoders, origin: origin) })
        }
        if let audio, let encoder = audioEncoder {
            started.append(JoinableThread(name: "hp-encode-audio") { [self] in encodeAudio(audio, encoder, origin: origin) })
        }
        let encoding = started
        let watcher = JoinableThread(name: "hp-encode-end") { [self] in
            encoding.forEach { $0.join() }
            finish()
        }
        state.withLock { threads = encoding + [watcher] }
    }

    public func source(_ source: MediaSource, didFailWith error: MediaError) {
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

    public func source(_ source: MediaSource, didReplace old: Track, with new: Track) throws(MediaError) {
        throw MediaError(input: source.url, reason: "no switch of stream while encoding")
    }

    public func source(_ source: MediaSource, didEvaluate report: BufferingReport, loadState: LoadState, serial: Int) {}

    // MARK: Encoding

    /// Opens the encoders each track needs and configures the track for them; returns a line per
    /// encoder.
    private func openEncoders(info: MediaInfo, video: Track?, audio: Track?) throws(MediaError) -> [String] {
        let takers = outputs.withLock { outputs in
            outputs.map { (video: $0.kinds.contains(.video) ? $0.videoEncodings : nil, audio: $0.kinds.contains(.audio),
                           globalHeader: $0.needsGlobalHeader) }
        }
        var lines: [String] = []
        if let video, let format = video.videoFormat {
            video.configureVideo(acceptedPixelFormats: [.yuv420p])
            let rate = info.streams.first { $0.index == Int(video.streamIndex) }?.frameRate ?? 0
            let frameRate = rate > 0 ? av_d2q(rate, 1_001_000) : AVRational(num: 25, den: 1)
            var encodings: [(settings: VideoEncodeSettings, taker: VideoEncodings)] = []
            if takers.contains(where: { $0.video == .main }) {
                var settings = job.video
                if settings.size == nil {
                    settings.size = PictureSize(width: format.width, height: format.height)
                    settings.sampleAspectRatio = format.sampleAspectRatio
                }
                settings.rotation = format.rotation
                encodings.append((settings, .main))
            }
            if let package = job.package, takers.contains(where: { $0.video == .rungs }) {
                let framesPerSegment = Int((package.segmentDuration * Double(frameRate.num) / Double(max(frameRate.den, 1))).rounded(.up))
                for rung in package.ladder ?? Ladder.standard(sourceHeight: format.height) {
                    var settings = job.video
                    // Square pixels in the source's displayed shape. (Not turned: a rotated source's
                    // ladder is sideways; MPEG-TS has no way to say so.)
                    let displayWidth = Int((Double(format.width) * format.sampleAspectRatio).rounded())
                    settings.size = PictureSize(width: rung.width(sourceWidth: displayWidth, sourceHeight: format.height), height: rung.height)
                    settings.bitRate = rung.bitRate
                    // Each segment's first picture is made an IDR; the interval only keeps
                    // x264 from adding one just before a boundary.
                    settings.keyFrameInterval = settings.keyFrameInterval ?? max(framesPerSegment, 1)
                    encodings.append((settings, .rungs))
                }
            }
            for (position, (settings, taker)) in encodings.enumerated() {
                let size = settings.size!
                // Its place among the encodings its outputs take: 0 for the main one, the rung's otherwise.
                let encoding = encodings[..<position].filter { $0.taker == taker }.count
                let routes = takers.indices.filter { takers[$0].video == taker }
                // 4:2:0 pictures have even sides.
                let (encoder, notes) = try VideoEncoder.open(
                    hardware: job.hardware, settings: settings, width: Int32(max(size.width & ~1, 2)),
                    height: Int32(max(size.height & ~1, 2)), frameRate: frameRate,
                    globalHeader: routes.contains { takers[$0].globalHeader })
                videoRoutes.append(routes.map { (output: $0, encoding: encoding) })
                videoEncoders.append(encoder)
                isRung.append(taker == .rungs)
                lines += notes.map { "\($0); encoding with the next" }
                lines.append("video: \(encoder.name) \(encoder.context.pointee.width)x\(encoder.context.pointee.height) "
                             + "\(frameRate.num)/\(frameRate.den) fps" + (settings.bitRate.map { " \($0 / 1000) kb/s" } ?? ""))
            }
        }
        if let audio, let native = audio.nativeAudioFormat, takers.contains(where: \.audio) {
            let encoder = try AudioEncoder(settings: job.audio, sourceRate: native.sampleRate, sourceChannels: native.channelCount,
                                           globalHeader: takers.contains { $0.audio && $0.globalHeader })
            audio.configureAudio(output: AudioFormat(sampleFormat: .float32, sampleRate: encoder.sampleRate,
                                                     channelCount: encoder.channelCount))
            audioEncoder = encoder
            lines.append("audio: aac \(encoder.sampleRate) Hz \(encoder.channelCount) ch \(job.audio.bitRate / 1000) kb/s")
        }
        return lines
    }

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
                try encoder.encode(frame.avFrame, pts: pts, isKeyFrame: startsSegment && isRung[index]) { (packet) throws(MediaError) in
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
        let countsFrames = videoEncoders.isEmpty
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
        let routes = videoRoutes[index]
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
        let readFailure = source.readFailure
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
