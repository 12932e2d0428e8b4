import CFFmpeg
import Synchronization

/// What a track's decode loop is doing.
package enum CodecState: Sendable, Equatable {
    case decoding
    /// Draining the decoder after the last packet.
    case flushing
    case finished
}

/// Where an exact seek's frames start: those before `pts` are decoded and dropped.
struct DropTarget: Equatable {
    var pts: Double
    /// Keep the last frame before `pts` too (a step back to the frame before the one shown).
    var keepsFrameBefore: Bool
}

/// Hears about a track's queue activity: its source, which decides buffering from it.
protocol TrackListener: AnyObject, Sendable {
    func trackDidChangeQueues(_ track: Track)
}

/// One played stream: packet queue → its own decode thread → frame queue.
///
/// The source pushes packets; the decode loop pops them, decodes, converts to what the output
/// takes and queues frames (video in pts order); a renderer takes frames and gives them back with
/// `recycle`. Packets and frames come from pools, so steady playback allocates none.
///
/// From outside HPlayerKit, a track is read only: its properties may be read from any thread.
public final class Track: @unchecked Sendable {
    /// Whether it plays video or audio.
    public let kind: MediaKind
    /// The container's index of its stream, as `StreamInfo.index`.
    public let streamIndex: Int32
    let timeBase: TimeBase
    /// Packets per second (audio: sample rate / samples per packet): turns queue lengths into
    /// seconds of buffer.
    public let packetsPerSecond: Double
    /// Seconds one packet lasts when the stream does not say (1 / packetsPerSecond).
    var nominalFrameDuration: Double { 1 / packetsPerSecond }
    /// The container's start time in this stream's ticks: where every loop pass begins.
    let startTicks: Int64
    /// Where the stream ends, in seconds, when the container says.
    let declaredEnd: Double?
    /// A raw video stream (H.264, HEVC), which has no timestamps: how to pace its pictures; nil
    /// for any other.
    let rawPacing: RawStreamPacing?

    /// The source's and the decode loop's; the renderers go through the frame methods below.
    let packets: RingBuffer<Packet>
    let frames: RingBuffer<Frame>
    let packetPool: ObjectPool<Packet>
    /// Frames libavcodec decodes into.
    let framePool: ObjectPool<Frame>
    /// Frames that receive a conversion (pixel format, resampling) into storage of their own.
    let conversionPool: ObjectPool<Frame>
    let decoder: Decoder
    /// The captions the pictures may carry (a video track of a codec that can), fed as they decode.
    let captions: ClosedCaptions?
    private(set) var pixelConverter: PixelConverter?
    private(set) var resampler: AudioResampler?
    /// The format frames are queued in (audio tracks).
    public private(set) var audioFormat: AudioFormat?
    /// The decoded audio's rate and channels, as float samples (audio tracks).
    public let nativeAudioFormat: AudioFormat?
    /// The picture's size, pixel shape and rotation (video tracks).
    public let videoFormat: VideoFormat?

    weak var listener: TrackListener?
    private let lock = ConditionLock()
    private var state = CodecState.decoding
    private var dropTarget: (serial: Int, target: DropTarget)?
    private let finishedSerial = Atomic<Int>(-1)
    /// The oldest serial still wanted, raised by a seek as it is asked (`discardQueued(before:)`).
    private let oldestWantedSerial = Atomic<Int>(Int.min)
    /// Whether the decoder has put out any frame: media in which nothing decodes is an error,
    /// not an empty success.
    private let decodedAnyFrame = Atomic<Bool>(false)
    /// Frames out of the decoder, and pixel-format conversions, since the latest seek.
    private let decodedSinceSeek = Atomic<Int>(0)
    private let convertedSinceSeek = Atomic<Int>(0)
    /// The payload bytes of the packets queued and not yet recycled: read-ahead is bounded by bytes.
    private let queuedPacketBytes = Atomic<Int>(0)
    /// The serial of the latest packet queued: whether a serial has had any, once the decoder
    /// has taken them all.
    private let latestPacketSerial = Atomic<Int>(Int.min)
    /// The first frame the decoder queued of the latest serial that has one, by where it starts:
    /// known still once a renderer (the audio tempo stage) has taken the frame from the queue.
    private let firstFrame = Locked<(serial: Int, position: Double)?>(nil)
    private let decodeErrors = Atomic<Int>(0)
    /// The decoder's first complaint, which says why nothing decoded when nothing did.
    private var firstDecodeProblem: String?
    private var thread: JoinableThread?

    /// - Parameter index: the stream's place in its container's `streams`.
    /// `mediaEnd`: where the media ends, for a stream whose own duration is not the media's (a
    /// segmented stream's first section's): its `declaredEnd` then.
    init(kind: MediaKind, stream: UnsafeMutablePointer<AVStream>, index: Int32, decoder: Decoder, startTime: Double,
         packetCapacity: Int, frameCapacity: Int, rawPacing: RawStreamPacing? = nil, mediaEnd: Double?? = nil,
         captions: ClosedCaptions? = nil) {
        self.kind = kind
        self.captions = kind == .video ? captions : nil
        self.rawPacing = kind == .video ? rawPacing : nil
        streamIndex = index
        timeBase = TimeBase(stream.pointee.time_base)
        self.decoder = decoder
        packetsPerSecond = Self.packetsPerSecond(kind: kind, stream: stream)
        startTicks = timeBase.ticks(startTime)
        let streamStart = stream.pointee.start_time == noTimestamp ? startTicks : stream.pointee.start_time
        if let mediaEnd {
            declaredEnd = mediaEnd
        } else {
            declaredEnd = stream.pointee.duration > 0 && stream.pointee.duration != noTimestamp
                ? timeBase.seconds(streamStart + stream.pointee.duration) : nil
        }
        let parameters = stream.pointee.codecpar.pointee
        nativeAudioFormat = kind == .audio
            ? AudioFormat(sampleFormat: .float32, sampleRate: Int(max(parameters.sample_rate, 1)),
                          channelCount: Int(max(parameters.ch_layout.nb_channels, 1)))
            : nil
        videoFormat = kind == .video ? VideoFormat(stream: stream) : nil
        packets = RingBuffer(capacity: packetCapacity)
        frames = RingBuffer(capacity: frameCapacity)
        packetPool = ObjectPool(reserve: packets.capacity * 2 + 8) { Packet() }
        framePool = ObjectPool(reserve: frames.capacity * 2 + 8) { Frame() }
        conversionPool = ObjectPool(reserve: frames.capacity * 2 + 8) { Frame(isConversionTarget: true) }
    }

    /// Video: the pixel formats the output takes (nil: any); must come before `startDecoding`.
    func configureVideo(acceptedPixelFormats: [PixelFormat]?) {
        pixelConverter = PixelConverter(accepted: acceptedPixelFormats?.map(\.av))
    }

    /// Audio: the format the output takes; must come before `startDecoding`.
    func configureAudio(output: AudioFormat) {
        audioFormat = output
        resampler = AudioResampler(output: output)
    }

    func startDecoding() {
        let loop = DecodeLoop(track: self)
        thread = JoinableThread(name: "hp-decode-\(kind.rawValue)") { loop.run() }
    }

    /// Stops the decode thread, joins it and returns every queued packet and frame to its pool.
    func close() {
        packets.close()
        frames.close()
        thread?.join()
        thread = nil
        packets.flush(recycle)
        frames.flush(recycle)
    }

    // MARK: State shared with the decode loop

    package var codecState: CodecState { lock.withLock { state } }

    /// `finishing`: the serial whose frames have all been decoded (with `.finished`).
    func setCodecState(_ newState: CodecState, finishing serial: Int? = nil) {
        lock.withLock { state = newState }
        finishedSerial.store(serial ?? -1, ordering: .releasing)
        if serial != nil { frames.wakeConsumer() }  // a consumer waiting for frames learns there are no more
    }

    /// True once the decoder has drained every frame of `serial`.
    package func hasFinishedDecoding(serial: Int) -> Bool {
        finishedSerial.load(ordering: .acquiring) == serial
    }

    func noteDecodedFrame() {
        if !decodedAnyFrame.load(ordering: .relaxed) { decodedAnyFrame.store(true, ordering: .relaxed) }
        decodedSinceSeek.add(1, ordering: .relaxed)
    }

    func noteConvertedFrame() { convertedSinceSeek.add(1, ordering: .relaxed) }

    /// A new serial (a seek) starts the counts again.
    func resetFrameCounts() {
        decodedSinceSeek.store(0, ordering: .relaxed)
        convertedSinceSeek.store(0, ordering: .relaxed)
    }

    /// Frames decoded, and converted to the output's pixel format, since the latest seek: an
    /// exact seek does not decode the B-frames before its target that nothing refers to, and a
    /// picture is converted at most once.
    public var frameCounts: (decoded: Int, converted: Int) {
        (decodedSinceSeek.load(ordering: .relaxed), convertedSinceSeek.load(ordering: .relaxed))
    }

    func noteDecodeProblem(_ reason: String) {
        decodeErrors.add(1, ordering: .relaxed)
        lock.withLock { firstDecodeProblem = firstDecodeProblem ?? reason }
    }

    /// A picture or sound the decoder gave with damage concealed, or a picture not shown as its
    /// references were never received (a stream joined mid-GOP).
    func noteDamagedFrame() { decodeErrors.add(1, ordering: .relaxed) }

    /// Packets refused and frames given damaged, since the track opened (the status line's Errors).
    public var decodeErrorCount: Int { decodeErrors.load(ordering: .relaxed) }

    /// Why not one frame has been decoded, as the error line gives it; nil once one has.
    package var nothingDecodedReason: String? {
        guard !decodedAnyFrame.load(ordering: .relaxed) else { return nil }
        return "no frame could be decoded" + (lock.withLock { firstDecodeProblem }.map { " (\($0))" } ?? "")
    }

    /// The serial whose frames have all been decoded, if any.
    var decodingFinishedSerial: Int? {
        let serial = finishedSerial.load(ordering: .acquiring)
        return serial < 0 ? nil : serial
    }

    /// Exact seek: frames of `serial` before `pts` (seconds) are decoded and dropped; with
    /// `keepsFrameBefore`, the last of them is kept (a step back).
    func setDropTarget(serial: Int, pts: Double?, keepsFrameBefore: Bool = false) {
        lock.withLock { dropTarget = pts.map { (serial, DropTarget(pts: $0, keepsFrameBefore: keepsFrameBefore)) } }
    }

    func dropTarget(for serial: Int) -> DropTarget? {
        lock.withLock { dropTarget?.serial == serial ? dropTarget?.target : nil }
    }

    /// A seek of `serial` is asked: what is queued of older serials goes, and their packets are
    /// not decoded from now on. The read thread may queue one more before it sees the seek, or the
    /// decode thread hold one it popped: decoded, it would start the decoder mid-GOP, on
    /// references it never had. What the read thread queued for the seek already stays.
    func discardQueued(before serial: Int) {
        oldestWantedSerial.max(serial, ordering: .releasing)
        packets.flush(where: { $0.serial < serial }, recycle)
        frames.flush(where: { $0.serial < serial }, recycle)
    }

    func isStale(_ packet: Packet) -> Bool {
        packet.serial < oldestWantedSerial.load(ordering: .acquiring)
    }

    // MARK: Frames, for the renderers

    /// The next decoded frame: waiting for one with `blocking` (see `RingBuffer.pop`), else nil at once.
    func popFrame(blocking: Bool, deadline: Double? = nil, batch: Int = 1) -> Frame? {
        frames.pop(blocking: blocking, deadline: deadline, batch: batch)
    }

    /// Runs `body` on the queued frames, oldest first, with the queue locked: to look, and to
    /// take or drop from the front in one step.
    func withQueuedFrames<Result>(_ body: (inout RingBuffer<Frame>.Contents) -> Result) -> Result {
        frames.withContents(body)
    }

    /// Makes a consumer waiting for a frame return (a switch of track, a close).
    func wakeFrameConsumer() { frames.wakeConsumer() }

    /// The frame queue has closed: no frame will come.
    var isFrameQueueClosed: Bool { frames.isClosed }

    var queuedFrameCount: Int { frames.count }
    var frameQueueCapacity: Int { frames.capacity }

    /// A frame from the pool, for a stage that makes frames of its own (stretched audio).
    func makeFrame() -> Frame { framePool.acquire() }

    // MARK: Pools

    /// Gives a frame back once it has been presented or dropped.
    package func recycle(_ frame: Frame) {
        frame.reset()
        (frame.isConversionTarget ? conversionPool : framePool).release(frame)
    }

    /// Whether a packet of `serial` has been queued (and perhaps decoded since).
    func hasQueuedPacket(serial: Int) -> Bool { latestPacketSerial.load(ordering: .acquiring) >= serial }

    /// The decoder is queuing its first frame of `serial`, which starts at `position` (seconds:
    /// for sound, past what an exact seek trimmed); noted before the frame is queued.
    func noteFirstFrame(serial: Int, position: Double) {
        firstFrame.withLock { $0 = (serial, position) }
    }

    /// Where the first frame decoded of `serial` starts, whether it is queued still or taken;
    /// nil before one is.
    func firstFramePosition(serial: Int) -> Double? {
        firstFrame.withLock { $0?.serial == serial ? $0?.position : nil }
    }

    /// Counts `packet`'s payload as queued until it is recycled, and notes its serial.
    func countQueued(_ packet: Packet) {
        latestPacketSerial.max(packet.serial, ordering: .releasing)
        packet.countedBytes = Int(max(packet.avPacket.pointee.size, 0))
        queuedPacketBytes.add(packet.countedBytes, ordering: .relaxed)
    }

    /// The payload bytes of the packets queued (and being decoded).
    var packetBytes: Int { queuedPacketBytes.load(ordering: .relaxed) }

    func recycle(_ packet: Packet) {
        if packet.countedBytes > 0 {
            queuedPacketBytes.subtract(packet.countedBytes, ordering: .relaxed)
            packet.countedBytes = 0
        }
        packet.reset()
        packetPool.release(packet)
    }

    /// Packet and frame wrappers ever made: flat in steady playback.
    package var pooledObjectCount: Int { packetPool.createdCount + framePool.createdCount + conversionPool.createdCount }

    /// Pictures per second as the stream declares them (25 when it does not), or audio packets per second.
    static func packetsPerSecond(kind: MediaKind, stream: UnsafeMutablePointer<AVStream>) -> Double {
        let parameters = stream.pointee.codecpar.pointee
        switch kind {
        case .video:
            for rate in [stream.pointee.avg_frame_rate, stream.pointee.r_frame_rate] where rate.num > 0 && rate.den > 0 {
                let fps = rate.seconds
                if fps > 0.5 && fps < 1000 { return fps }
            }
            return 25
        case .audio:
            let samplesPerPacket = parameters.frame_size > 0 ? parameters.frame_size : 1024
            return parameters.sample_rate > 0 ? Double(parameters.sample_rate) / Double(samplesPerPacket) : 43
        }
    }
}

/// What the decode loop needs to pace a stream that has no timestamps.
struct RawStreamPacing: Sendable {
    /// The input, named in the line that says which rate was chosen.
    var input: String
    /// `--container-fps-override`.
    var frameRateOverride: Double?
}
