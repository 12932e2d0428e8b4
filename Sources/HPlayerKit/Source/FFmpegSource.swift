import CFFmpeg
import Synchronization

/// The FFmpeg source: opens a URL with libavformat, keeps the best video and audio streams as
/// tracks, and runs the read loop (ReadLoop.swift) on its own thread.
///
/// States: idle → opening → reading ⇄ paused (buffer full) / seeking → finished (end of file) /
/// closed. Buffering is decided on the read thread (SourceBuffering.swift).
public final class FFmpegSource: MediaSource, TrackListener, @unchecked Sendable {
    struct SeekRequest {
        var position: Double
        var mode: SeekMode
        var serial: Int
    }

    public let url: String
    let options: SourceOptions
    /// The buffering rules for this input: network media reads ahead further.
    let buffering: BufferingOptions
    /// Live mode's options when it applies to this input; nil plays it as a file.
    let live: LiveOptions?
    let container: InputContainer
    weak var delegate: SourceDelegate?

    // Guarded by `lock`.
    let lock = ConditionLock()
    var stateValue = SourceState.idle
    var looping: Bool
    var pendingSeek: SeekRequest?
    var readFailureValue: MediaError?
    /// An audio stream to switch to (AudioStreamSwitch.swift).
    var pendingAudioStream: Int?
    var closing = false
    /// Set when `close` has run to its end.
    var isClosed = false
    var openedTracks: [Track] = []
    /// The recording in progress (SourceRecording.swift).
    let recording = Locked(RecordingSlot())

    // Owned by the read thread.
    var tracks: [Track] = []
    var readSerial = 0
    var phase = BufferingPhase.firstOpen
    var loadState = LoadState.idle
    var endOfFile = false
    var lastEvaluation = 0.0
    var trackBuffers: [TrackBuffer] = []
    /// The payload bytes of every queued packet, at the latest evaluation.
    var bufferedBytes = 0
    /// The seconds read ahead of the playhead, at the latest evaluation.
    var bufferedDuration = 0.0
    /// What the read loop keeps for each track (its timeline, where its packets have reached).
    var reading: [TrackReadState] = []
    var lastJump: TimestampJump?
    var loop = LoopProgress()
    var scratchPacket: UnsafeMutablePointer<AVPacket>?
    /// The tracks' streams, as a recording copies them.
    var recordedStreams: [RecordedStream] = []
    /// The container's sections followed so far (an fMP4 HLS stream's, SourceRecording.swift).
    var sectionsFollowed = 0
    /// Live: whether the packet just read was a video key frame (a start waits for its picture).
    var lastReadWasVideoKeyFrame = false
    /// A raw elementary stream (H.264, HEVC), which has no timestamps: a seek then reads it again
    /// from the first byte and decodes up to the target. Known once open.
    private var isTimestamplessValue = false
    var isTimestampless: Bool { lock.withLock { isTimestamplessValue } }
    /// The text subtitle streams, decoded as they are read (SubtitleReading.swift).
    var subtitleReaders: [SubtitleStreamReader] = []
    /// The text renditions' readers (read thread's, then `close`'s once it has ended), and
    /// under `lock` for `close` to stop them while the read thread may wait on them.
    var textReaders: [TextRenditionReader] = []
    var openedTextReaders: [TextRenditionReader] = []
    /// A text rendition was too late once: packets no longer wait for cues, until a seek.
    var isTextLate = false

    /// Set while the first-open or after-seek rules apply: decoded frames then wake the read loop
    /// so playback starts as soon as the rules allow.
    let isStartingUp = Atomic<Bool>(true)
    private var readThread: JoinableThread?

    /// - Parameter input: the bytes to read, through the I/O layer; nil: the I/O layer's HTTP
    ///   client for an http(s) URL, else libavformat opens `url`.
    public init(url: String, options: SourceOptions = SourceOptions(), input: ByteSource? = nil) {
        self.url = url
        self.options = options
        live = options.live.applies(to: url) ? options.live : nil
        buffering = live != nil ? BufferingOptions.live()
            : NetworkOptions.isHTTP(url) ? options.buffering.readingAhead(options.readAhead) : options.buffering
        looping = options.isLooping
        container = InputContainer(url: url, byteSource: input, network: options.network, opensRenditions: options.mediaKinds.contains(.audio),
                                   format: options.inputFormat, isLive: live != nil)
    }

    deinit { close() }

    public var state: SourceState { lock.withLock { stateValue } }

    public var readFailure: MediaError? { lock.withLock { readFailureValue } }

    public func cachedRanges(duration: Double?) -> [TimeRange] { container.cacheMap?.ranges(duration: duration) ?? [] }

    public var isLooping: Bool {
        get { lock.withLock { looping } }
        set { lock.withLock { looping = newValue } }
    }

    public func open(delegate: SourceDelegate) {
        lock.withLock {
            guard stateValue == .idle else { return }
            self.delegate = delegate
            stateValue = .opening
            readThread = JoinableThread(name: "hp-read") { [self] in runReadLoop() }
        }
    }

    public func seek(to position: Double, mode: SeekMode, serial: Int) {
        let tracks = lock.withLock {
            pendingSeek = SeekRequest(position: position, mode: mode, serial: serial)
            lock.broadcast()
            return openedTracks
        }
        // A jump to the live edge keeps what is queued from the newest key frame on: the read
        // thread sorts the queues, as nothing is pushed meanwhile (ReadLoop's executeLiveJump).
        guard mode != .liveEdge else { return }
        // Empty the queues of what came before now: a read or decode thread blocked on a full one
        // wakes at once. The read thread may have begun the seek already: what it queued for it stays.
        for track in tracks { track.discardQueued(before: serial) }
    }

    /// Closes once: a second caller (an encode's Ctrl-C aborting the open while its end closes the
    /// source too) waits for the first to finish, and touches nothing itself.
    public func close() {
        let first = lock.withLock {
            guard !closing else {
                while !isClosed { lock.wait() }
                return false
            }
            closing = true
            lock.broadcast()
            return true
        }
        guard first else { return }
        let thread = lock.withLock { readThread }
        container.abort()
        for track in lock.withLock({ openedTracks }) { track.packets.close() }
        for reader in lock.withLock({ openedTextReaders }) { reader.close() }
        thread?.join()
        subtitleReaders.removeAll()  // their decoders; the tracks keep their cues
        for reader in textReaders { reader.close() }
        textReaders.removeAll()
        closeRecording()
        for track in lock.withLock({ openedTracks }) { track.close() }
        container.close()
        if scratchPacket != nil { av_packet_free(&scratchPacket) }
        lock.withLock {
            stateValue = .closed
            isClosed = true
            lock.broadcast()
        }
    }

    // MARK: Opening (on the read thread)

    /// Opens the container, makes a track per chosen stream and lets the delegate configure them.
    func openMedia() throws(MediaError) {
        if let live { Log.source.info("\(url): live mode: no start-up buffering, catching up past \(live.latencyTarget) s queued") }
        try container.open(fullAnalysis: false)
        tracks = try makeTracks()
        if let start = container.liveStartTime {
            // Before any packet is read, so each decoder finds the target as it begins.
            for track in tracks { track.setDropTarget(serial: readSerial, pts: start) }
            Log.source.info("\(url): live: starting at \(DecimalText.fixed(start, places: 3)) s, the latency target behind the live edge")
        }
        let info = MediaProbe.info(of: container)
        let subtitles = makeSubtitleTracks(info: info) + startTextRenditions()
        try delegate?.source(self, didOpen: info, tracks: tracks, subtitles: subtitles)
        scratchPacket = av_packet_alloc()
        recordedStreams = tracks.map { RecordedStream(stream: container.streams[Int($0.streamIndex)], track: $0) }
        reading = tracks.map(readState)
        trackBuffers = tracks.map { _ in
            TrackBuffer(kind: .video, packetCount: 0, packetCapacity: 0, frameCount: 0, frameCapacity: 0, packetsPerSecond: 0, isEndOfFile: false)
        }
        for track in tracks {
            track.listener = self
            track.startDecoding()
        }
        lock.withLock { openedTracks = tracks }
    }

    /// What the read loop starts a track's reading with.
    func readState(for track: Track) -> TrackReadState {
        let hasDiscontinuities = container.context.map { $0.pointee.iformat.pointee.flags & AVFMT_TS_DISCONT != 0 } ?? false
        return TrackReadState(limits: StreamTimeline.Limits(formatHasDiscontinuities: hasDiscontinuities),
                              declaredAudioEnd: track.kind == .audio && container.knowsStreamEnds ? track.declaredEnd : nil)
    }

    /// The best video and audio streams with a decoder each; every other stream but the subtitles
    /// (SubtitleReading.swift) is discarded.
    private func makeTracks() throws(MediaError) -> [Track] {
        guard container.context != nil else { throw MediaError(input: url, reason: "not open") }
        var video = container.chosenStream(of: .video, number: options.videoTrack)
        var audio = container.chosenStream(of: .audio, number: options.audioTrack, relatedTo: video)
        if !options.mediaKinds.contains(.video) { video = -1 }
        if !options.mediaKinds.contains(.audio) { audio = -1 }
        var made: [Track] = []
        var problems: [String] = []
        let isRaw = container.isRawElementaryStream
        lock.withLock { isTimestamplessValue = isRaw }
        let rawPacing = isRaw ? RawStreamPacing(input: url, frameRateOverride: options.frameRateOverride) : nil
        for (position, stream) in container.streams.enumerated() {
            let index = Int32(position)
            let kind: MediaKind? = index == video ? .video : index == audio ? .audio : nil
            guard let kind else {
                if stream.pointee.codecpar.pointee.codec_type != AVMEDIA_TYPE_SUBTITLE { stream.pointee.discard = AVDISCARD_ALL }
                continue
            }
            do {
                // Live: slice threads only, as frame threads each hold a picture back; queues of a few frames.
                let decoder = kind == .video
                    ? try VideoDecoderFactory.make(stream: stream, hardware: options.hardwareDecoding, input: url,
                                                   threads: options.videoDecoderThreads, slicesOnly: live != nil,
                                                   sizedTo: options.playbackRate)
                    : try SoftwareDecoder(stream: stream, slicesOnly: live != nil)
                let videoMaximum = live != nil ? min(options.videoFrameQueueCapacity, 4) : options.videoFrameQueueCapacity
                let frameCapacity = kind == .audio ? (live != nil ? min(options.audioFrameQueueCapacity, 4) : options.audioFrameQueueCapacity)
                    : FrameQueueSizing.videoCapacity(frameBytes: FrameQueueSizing.pictureBytes(stream.pointee.codecpar.pointee),
                                                     budget: options.videoFrameQueueBytes, maximum: videoMaximum)
                // A segmented stream's AVStream knows its first section alone: the media's end
                // (for an exact seek's frame dropping, which stops short of it) is the playlist's.
                let mediaEnd: Double?? = container.knowsStreamEnds ? nil : .some(container.duration.map { container.startTime + $0 })
                made.append(Track(kind: kind, stream: stream, index: index, decoder: decoder, startTime: container.startTime,
                                  packetCapacity: options.packetQueueCapacity, frameCapacity: frameCapacity,
                                  rawPacing: rawPacing, mediaEnd: mediaEnd,
                                  captions: kind == .video ? makeCaptions(codec: stream.pointee.codecpar.pointee.codec_id) : nil))
            } catch {
                problems.append("\(kind.rawValue) stream \(index) (\(error.input)): \(error.reason)")
                stream.pointee.discard = AVDISCARD_ALL
            }
        }
        guard !made.isEmpty else {
            throw MediaError(input: url, reason: problems.first ?? "no audio or video stream")
        }
        for problem in problems { Log.source.warning("\(url): skipping \(problem)") }
        return made
    }

    // MARK: TrackListener (decode threads)

    func trackDidChangeQueues(_ track: Track) {
        guard isStartingUp.load(ordering: .relaxed) else { return }
        let tracks = lock.withLock {
            lock.broadcast()
            return openedTracks
        }
        for track in tracks { track.packets.wakeProducer() }
    }
}

/// Where the read loop is in a looped file.
struct LoopProgress {
    var pass = 0
    /// Seconds added to this pass's timestamps: the length of the passes before.
    var offset = 0.0
    /// The latest end (pts + duration, seconds, without the loop offset) of any packet in this pass.
    var passEnd = -Double.infinity
}
