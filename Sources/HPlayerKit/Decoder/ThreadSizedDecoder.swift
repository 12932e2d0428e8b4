import CFFmpeg
import Synchronization

/// The playback speed, as the player sets it, for a decoder that sizes itself to it
/// (`SourceOptions.playbackRate`). Read and written from any thread.
public final class PlaybackRate: Sendable {
    private let value: Atomic<Double>

    /// A rate starting at `speed`.
    public init(_ speed: Double = 1) { value = Atomic(speed) }

    /// Media seconds per second.
    public var speed: Double {
        get { value.load(ordering: .relaxed) }
        set { value.store(newValue, ordering: .relaxed) }
    }
}

/// A software video decoder with the fewest threads that keep up (DecoderThreadSizing).
///
/// - It measures the time spent in libavcodec per picture and, when that is more than the frame
///   interval allows, hands over to a decoder with more threads at the next point where the
///   stream starts afresh (FreshStart), or at the first packet after a flush (a seek), where
///   both decoders start from nothing alike (open-GOP streams, which have no such point, grow
///   there only).
/// - An exact seek decodes the pictures before its target as fast as it can, on a thread per
///   core: a decoder that size takes over at the flush, and the sized one takes back at the
///   next fresh start once the target is reached. Only in a stream that has shown a fresh start
///   past its first packet: in one without (open GOPs, intra refresh, codecs FreshStart does
///   not know) the larger decoder would stay to the next seek.
///
/// At a hand-over the old decoder is drained first, so every picture comes out once and in
/// order, the same as from one decoder.
final class ThreadSizedDecoder: Decoder {
    private var current: SoftwareDecoder
    /// The present decoder's threads.
    private(set) var threads: Int
    /// What real time needs: the first estimate, grown by measurement.
    private(set) var sizedThreads: Int
    /// The stream's parameters, kept: its AVStream goes with a sectioned stream's next section.
    private let parameters: StreamParameters
    private let input: String
    private let cores: Int
    private let rate: PlaybackRate
    /// Seconds a picture lasts at 1x.
    private let frameDuration: Double
    private let codec: AVCodecID
    private let lengthSize: Int
    /// The threads to hand over to at the next fresh start; nil while the present ones do.
    private var wantedThreads: Int?
    /// A decoder failed to open: the present one stays for good.
    private var isFixed = false
    /// Nothing sent since the decoder was made or flushed.
    private var isEmpty = true
    /// Whether a fresh start has come other than as the stream's first packet (an open-GOP
    /// stream's one IDR): where the larger decoder of a seek has a place to hand back. One a
    /// seek landed on counts too, so a run of seeks soon finds it.
    private var hasFreshStartsMidStream = false
    private var firstPacketPts: Int64?
    /// The drained decoder's last pictures, given out before the new one's.
    private let pending = PictureBacklog()
    /// The present measurement: seconds in libavcodec, and pictures out, since it began.
    private var busy = 0.0
    private var pictures = 0
    /// Pictures a measurement covers: about a second of video.
    static let measuredPictures = 30
    /// Failed receives a drain goes past before giving up on the old decoder's last pictures.
    static let drainFailureLimit = 16

    init(stream: UnsafeMutablePointer<AVStream>, input: String, rate: PlaybackRate, cores: Int) throws(MediaError) {
        let parameters = stream.pointee.codecpar.pointee
        let framesPerSecond = Track.packetsPerSecond(kind: .video, stream: stream)
        sizedThreads = DecoderThreadSizing.initialThreads(width: Int(parameters.width), height: Int(parameters.height),
                                                          framesPerSecond: framesPerSecond, speed: rate.speed, cores: cores)
        threads = sizedThreads
        self.parameters = try StreamParameters(stream)
        current = try SoftwareDecoder(parameters: self.parameters, threads: sizedThreads)
        self.input = input
        self.cores = cores
        self.rate = rate
        frameDuration = 1 / framesPerSecond
        codec = parameters.codec_id
        lengthSize = parameters.extradata.map {
            FreshStart.lengthSize(extradata: UnsafeBufferPointer(start: $0, count: Int(max(parameters.extradata_size, 0))), codec: parameters.codec_id)
        } ?? 0
        Log.track.debug("\(input): \(sizedThreads) decoder thread(s) for \(parameters.width)x\(parameters.height) at \(framesPerSecond) fps")
    }

    /// A seek's threads: libavcodec's own choice, a thread per core and one more, at most 16.
    private var burstThreads: Int { min(cores + 1, DecoderThreadSizing.maximum) }

    func send(_ packet: UnsafeMutablePointer<AVPacket>?) -> DecoderStatus {
        if let packet, packet.pointee.side_data_elems > 0 { parameters.takeNewExtradata(of: packet) }
        if let packet, isEmpty || wantedThreads != nil || !hasFreshStartsMidStream {
            let isFresh = startsAfresh(packet)
            let pts = packet.pointee.pts
            if firstPacketPts == nil {
                firstPacketPts = pts
            } else if isFresh, !isEmpty || (pts != noTimestamp && pts != firstPacketPts) {
                hasFreshStartsMidStream = true
            }
            if let wanted = wantedThreads, isEmpty || isFresh { handOver(to: wanted) }
        }
        let started = MonotonicClock.now()
        let status = current.send(packet)
        busy += MonotonicClock.now() - started
        if case .failed = status {} else { isEmpty = false }  // a refused packet leaves it empty
        return status
    }

    func receive(into frame: UnsafeMutablePointer<AVFrame>) -> DecoderStatus {
        if pending.takeFirst(into: frame) { return .ok }
        let started = MonotonicClock.now()
        let status = current.receive(into: frame)
        busy += MonotonicClock.now() - started
        if status == .ok { notePicture() }
        return status
    }

    func flush() {
        current.flush()
        isEmpty = true
        // Seeking on from an exact seek not yet at its target: the next packet's flag decides.
        if current.skipsNonReferenceFrames, threads != sizedThreads { wantedThreads = nil }
        pending.removeAll()
        restartMeasurement()
    }

    /// Set before each packet is sent (DecodeLoop): true from an exact seek's first packet
    /// until its target.
    var skipsNonReferenceFrames: Bool {
        get { current.skipsNonReferenceFrames }
        set {
            current.skipsNonReferenceFrames = newValue
            restartMeasurement()  // pictures skipped to a seek's target are not the stream's pace
            if newValue, isEmpty {
                if threads >= burstThreads {
                    wantedThreads = nil  // another exact seek before the hand-back: the larger decoder stays
                } else if hasFreshStartsMidStream, !isFixed {
                    handOver(to: burstThreads, isOptional: true)
                }
            } else if !newValue, threads != sizedThreads, wantedThreads == nil {
                wantedThreads = sizedThreads
            }
        }
    }

    var frameRate: Double? { current.frameRate }

    // MARK: Measuring

    private func notePicture() {
        guard !current.skipsNonReferenceFrames, !isFixed, threads == sizedThreads else { return }
        pictures += 1
        guard pictures >= Self.measuredPictures else { return }
        let perPicture = busy / Double(pictures)
        let interval = frameDuration / max(rate.speed, 0.01)
        let wanted = DecoderThreadSizing.threads(current: threads, frameInterval: interval, decodeTime: perPicture, cores: cores)
        if wanted > sizedThreads {
            sizedThreads = wanted
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
    /// place. Where that cannot open, the present one is flushed and goes on (the packet about
    /// to be sent starts afresh, so nothing is lost either way): as it is for good, unless the
    /// change was `isOptional` (a seek's larger decoder, asked of an empty one).
    private func handOver(to wanted: Int, isOptional: Bool = false) {
        wantedThreads = nil
        guard wanted != threads else { return }
        if !isEmpty { drainIntoPending() }
        do {
            let replacement = try SoftwareDecoder(parameters: parameters, threads: wanted)
            replacement.skipsNonReferenceFrames = current.skipsNonReferenceFrames
            current = replacement
            threads = wanted
            Log.track.debug("\(input): \(wanted) decoder threads from here")
        } catch {
            current.flush()
            guard !isOptional else { return }
            Log.track.warning("\(input): a decoder with \(wanted) threads did not open (\(error.reason)): keeping \(threads)")
            sizedThreads = threads
            isFixed = true
        }
        restartMeasurement()
    }

    /// The old decoder's last pictures. A damaged picture fails its receive; those after it still come.
    private func drainIntoPending() {
        guard current.send(nil) == .ok else { return }
        var failures = 0
        while failures < Self.drainFailureLimit, let frame = av_frame_alloc() {
            let status = current.receive(into: frame)
            if status == .ok {
                pending.append(frame)
                continue
            }
            var unused: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&unused)
            guard case .failed = status else { break }
            failures += 1
        }
    }
}
