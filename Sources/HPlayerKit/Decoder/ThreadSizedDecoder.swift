import CFFmpeg
import Synchronization

/// The playback speed, as the player sets it, for a decoder that sizes itself to it.
public final class PlaybackRate: Sendable {
    private let value: Atomic<Double>

    public init(_ speed: Double = 1) { value = Atomic(speed) }

    public var speed: Double {
        get { value.load(ordering: .relaxed) }
        set { value.store(newValue, ordering: .relaxed) }
    }
}

/// A software video decoder with the fewest threads that keep up (DecoderThreadSizing): it
/// measures the time spent in libavcodec per picture and, when that is more than the frame
/// interval allows, hands over to a decoder with more threads at the next point where the
/// stream starts afresh (FreshStart). The old decoder is drained there first, so every picture
/// comes out once and in order, the same as from one decoder.
final class ThreadSizedDecoder: Decoder {
    private var current: SoftwareDecoder
    private(set) var threads: Int
    private let stream: UnsafeMutablePointer<AVStream>
    private let input: String
    private let cores: Int
    private let rate: PlaybackRate
    /// Seconds a picture lasts at 1x.
    private let frameDuration: Double
    private let codec: AVCodecID
    private let lengthSize: Int
    /// The threads to hand over to at the next fresh start; nil while the present ones keep up.
    private var wantedThreads: Int?
    /// A larger decoder failed to open: the present one stays for good.
    private var cannotGrow = false
    /// The drained decoder's last pictures, given out before the new one's.
    private var pending: [UnsafeMutablePointer<AVFrame>] = []
    /// The present measurement: seconds in libavcodec, and pictures out, since it began.
    private var busy = 0.0
    private var pictures = 0
    /// Pictures a measurement covers: about a second of video.
    static let measuredPictures = 30

    init(stream: UnsafeMutablePointer<AVStream>, input: String, rate: PlaybackRate, cores: Int) throws(MediaError) {
        let parameters = stream.pointee.codecpar.pointee
        let framesPerSecond = Track.packetsPerSecond(kind: .video, stream: stream)
        threads = DecoderThreadSizing.initialThreads(width: Int(parameters.width), height: Int(parameters.height),
                                                     framesPerSecond: framesPerSecond, speed: rate.speed, cores: cores)
        current = try SoftwareDecoder(stream: stream, threads: threads)
        self.stream = stream
        self.input = input
        self.cores = cores
        self.rate = rate
        frameDuration = 1 / framesPerSecond
        codec = parameters.codec_id
        lengthSize = parameters.extradata.map {
            FreshStart.lengthSize(extradata: UnsafeBufferPointer(start: $0, count: Int(max(parameters.extradata_size, 0))), codec: parameters.codec_id)
        } ?? 0
        Log.track.debug("\(input): \(threads) decoder thread(s) for \(parameters.width)x\(parameters.height) at \(framesPerSecond) fps")
    }

    deinit { dropPending() }

    func send(_ packet: UnsafeMutablePointer<AVPacket>?) -> DecoderStatus {
        if let packet, let wanted = wantedThreads, startsAfresh(packet) { handOver(to: wanted) }
        let started = MonotonicClock.now()
        let status = current.send(packet)
        busy += MonotonicClock.now() - started
        return status
    }

    func receive(into frame: UnsafeMutablePointer<AVFrame>) -> DecoderStatus {
        if !pending.isEmpty {
            var first: UnsafeMutablePointer<AVFrame>? = pending.removeFirst()
            av_frame_move_ref(frame, first)
            av_frame_free(&first)
            return .ok
        }
        let started = MonotonicClock.now()
        let status = current.receive(into: frame)
        busy += MonotonicClock.now() - started
        if status == .ok { notePicture() }
        return status
    }

    func flush() {
        current.flush()
        dropPending()
        restartMeasurement()
    }

    var skipsNonReferenceFrames: Bool {
        get { current.skipsNonReferenceFrames }
        set {
            current.skipsNonReferenceFrames = newValue
            restartMeasurement()  // pictures skipped to a seek's target are not the stream's pace
        }
    }

    var frameRate: Double? { current.frameRate }

    // MARK: Measuring

    private func notePicture() {
        guard !current.skipsNonReferenceFrames, !cannotGrow else { return }
        pictures += 1
        guard pictures >= Self.measuredPictures else { return }
        let perPicture = busy / Double(pictures)
        let interval = frameDuration / max(rate.speed, 0.01)
        let wanted = DecoderThreadSizing.threads(current: threads, frameInterval: interval, decodeTime: perPicture, cores: cores)
        if wanted > max(threads, wantedThreads ?? 0) {
            wantedThreads = wanted
            Log.track.info("\(input): decoding takes \(Int(perPicture * 1000)) ms a picture of the \(Int(interval * 1000)) ms each lasts: \(wanted) decoder threads from the next key frame")
        }
        restartMeasurement()
    }

    private func restartMeasurement() {
        busy = 0
        pictures = 0
    }

    // MARK: The hand-over

    private func startsAfresh(_ packet: UnsafeMutablePointer<AVPacket>) -> Bool {
        guard let data = packet.pointee.data else { return false }
        return FreshStart.isFresh(UnsafeBufferPointer(start: data, count: Int(packet.pointee.size)),
                                  isKeyFlagged: packet.pointee.flags & AV_PKT_FLAG_KEY != 0, codec: codec, lengthSize: lengthSize)
    }

    /// Drains the present decoder into `pending` and puts a decoder of `wanted` threads in its
    /// place; where that cannot open, the present one is flushed and goes on (the packet about
    /// to be sent starts afresh, so nothing is lost either way).
    private func handOver(to wanted: Int) {
        wantedThreads = nil
        var status = current.send(nil)
        while status == .ok {
            guard let frame = av_frame_alloc() else { break }
            status = current.receive(into: frame)
            if status == .ok {
                pending.append(frame)
            } else {
                var unused: UnsafeMutablePointer<AVFrame>? = frame
                av_frame_free(&unused)
            }
        }
        do {
            let larger = try SoftwareDecoder(stream: stream, threads: wanted)
            larger.skipsNonReferenceFrames = current.skipsNonReferenceFrames
            current = larger
            threads = wanted
            Log.track.debug("\(input): \(wanted) decoder threads from here")
        } catch {
            Log.track.warning("\(input): a decoder with \(wanted) threads did not open (\(error.reason)): keeping \(threads)")
            current.flush()
            cannotGrow = true
        }
        restartMeasurement()
    }

    private func dropPending() {
        for frame in pending {
            var owned: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&owned)
        }
        pending.removeAll()
    }
}
