import CFFmpeg
import CHPlayerShim
import Glibc

/// A hardware decoder with FFmpeg's software decoder behind it, for the design's "invalid
/// session": when the hardware fails mid-stream (a decode error, a device lost), one line says
/// so, the packets since the last key frame are decoded again in software, and the pictures
/// the hardware had already given are not given twice. No picture is lost: FFmpeg's hardware
/// decoders give the same pictures as its software ones.
final class FallbackDecoder: Decoder {
    private var current: Decoder
    private var isHardware = true
    private let api: HardwareAPI
    private let input: String
    /// The stream's parameters as they are now (a later section's new codec configuration
    /// taken from its packets), for the software decoder opened mid-stream.
    private let parameters: StreamParameters
    private let makeSoftware: (StreamParameters) throws(MediaError) -> Decoder

    /// References to the packets sent (the payloads are shared, not copied), a group per GOP
    /// from the GOP whose key picture came out last: pictures of the GOP before can still come
    /// out after the next key frame is sent (B-frame reordering), so a GOP is let go only once
    /// the next one's key picture is out. Spare packets take the next ones.
    private var gops: [[UnsafeMutablePointer<AVPacket>]] = []
    private var spare: [UnsafeMutablePointer<AVPacket>] = []
    private var keptPacketCount = 0
    /// Key frames sent whose pictures have not come out yet.
    private var keyPicturesAwaited = 0
    /// False once more than `maximumKeptPackets` had to be let go (a stream with no key frame
    /// for that long): until the next key picture, a failure cannot be replayed.
    private var isReplayable = true
    static let maximumKeptPackets = 1000
    /// What was given out: the pts of the last picture (nil when the stream has none), and the
    /// pictures since the first GOP's key picture.
    private var lastGivenPts: Int64?
    private var givenSinceKeyPicture = 0
    /// After the switch: the replayed pictures are skipped until one comes after those given.
    private var isSkippingReplayed = false
    private var skipped = 0
    /// Pictures the software decoder gave while the packets were replayed, to give out next.
    private let pending = PictureBacklog()
    /// The end was sent (a nil packet): the software decoder is drained too after the replay.
    private var isDraining = false

    init(primary: Decoder, api: HardwareAPI, input: String, parameters: StreamParameters,
         makeSoftware: @escaping (StreamParameters) throws(MediaError) -> Decoder) {
        self.parameters = parameters
        current = primary
        self.api = api
        self.input = input
        self.makeSoftware = makeSoftware
    }

    deinit {
        forgetPackets()
        for packet in spare {
            var owned: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&owned)
        }
    }

    /// Whether the hardware decoder still decodes.
    var isDecodingInHardware: Bool { isHardware }

    func send(_ packet: UnsafeMutablePointer<AVPacket>?) -> DecoderStatus {
        if packet == nil { isDraining = true }
        if isHardware, let packet, packet.pointee.side_data_elems > 0 { parameters.takeNewExtradata(of: packet) }
        let status = current.send(packet)
        guard isHardware else { return status }
        switch status {
        case .ok, .endOfStream:
            if let packet { keep(packet) }
            return status
        case .needsIO:
            return status  // sent again once frames are taken
        case .failed(let error):
            if let packet { keep(packet) }
            return fallBack(after: error)
        }
    }

    func receive(into frame: UnsafeMutablePointer<AVFrame>) -> DecoderStatus {
        if pending.takeFirst(into: frame) { return .ok }
        while true {
            let status = current.receive(into: frame)
            switch status {
            case .ok:
                if isSkippingReplayed, wasGiven(frame) {
                    av_frame_unref(frame)
                    continue
                }
                isSkippingReplayed = false
                noteGiven(frame)
                return .ok
            case .failed(let error) where isHardware:
                let replayed = fallBack(after: error)
                guard replayed == .ok else { return replayed }
                return receive(into: frame)
            default:
                return status
            }
        }
    }

    func flush() {
        current.flush()
        forgetPackets()
        pending.removeAll()
        lastGivenPts = nil
        givenSinceKeyPicture = 0
        isReplayable = true
        isSkippingReplayed = false
        isDraining = false
    }

    var skipsNonReferenceFrames: Bool {
        get { current.skipsNonReferenceFrames }
        set { current.skipsNonReferenceFrames = newValue }
    }

    var frameRate: Double? { current.frameRate }

    // MARK: The switch to software

    private func fallBack(after error: FFmpegError) -> DecoderStatus {
        let software: Decoder
        do { software = try makeSoftware(parameters) } catch {
            Log.track.error("\(input): the \(api.rawValue) decoder failed, and software decoding cannot start: \(error.reason)")
            return .failed(FFmpegError(hp_averror(EIO)))
        }
        let from = isReplayable ? "the last key frame" : "the next key frame"
        let reason = current.failureDetail ?? "\(error)"
        Log.track.warning("\(input): the \(api.rawValue) decoder failed (\(reason)): decoding in software from \(from)")
        software.skipsNonReferenceFrames = current.skipsNonReferenceFrames
        current = software
        isHardware = false
        isSkippingReplayed = isReplayable
        skipped = 0
        for packet in isReplayable ? Array(gops.joined()) : [] {
            while current.send(packet) == .needsIO { takeReplayed() }
            takeReplayed()
        }
        if isDraining {
            while current.send(nil) == .needsIO { takeReplayed() }
            takeReplayed()
        }
        forgetPackets()
        return .ok
    }

    /// Moves what the software decoder has ready into `pending`, less what was given before.
    private func takeReplayed() {
        while true {
            guard let frame = av_frame_alloc() else { return }
            guard current.receive(into: frame) == .ok else {
                var unused: UnsafeMutablePointer<AVFrame>? = frame
                av_frame_free(&unused)
                return
            }
            if isSkippingReplayed, wasGiven(frame) {
                var given: UnsafeMutablePointer<AVFrame>? = frame
                av_frame_free(&given)
                continue
            }
            isSkippingReplayed = false
            noteGiven(frame)
            pending.append(frame)
        }
    }

    /// Whether a replayed picture is one the hardware gave already: by pts where the stream has
    /// them, else by count since the first kept GOP's key picture.
    private func wasGiven(_ frame: UnsafeMutablePointer<AVFrame>) -> Bool {
        let pts = frame.pointee.best_effort_timestamp
        if let lastGivenPts, pts != noTimestamp { return pts <= lastGivenPts }
        skipped += 1
        return skipped <= givenSinceKeyPicture
    }

    /// Notes a picture given out; a key picture lets the GOPs before its own go.
    private func noteGiven(_ frame: UnsafeMutablePointer<AVFrame>) {
        let pts = frame.pointee.best_effort_timestamp
        if pts != noTimestamp { lastGivenPts = pts }
        guard isHardware, frame.pointee.key_frame != 0, keyPicturesAwaited > 0 else {
            givenSinceKeyPicture += 1
            return
        }
        let own = gops.count - keyPicturesAwaited
        for gop in gops.prefix(own) { recycle(gop) }
        gops.removeFirst(own)
        keptPacketCount = gops.reduce(0) { $0 + $1.count }
        keyPicturesAwaited -= 1
        givenSinceKeyPicture = 1
        isReplayable = true
    }

    // MARK: Packets kept for a replay

    private func keep(_ packet: UnsafeMutablePointer<AVPacket>) {
        if keptPacketCount >= Self.maximumKeptPackets {
            forgetPackets()
            isReplayable = false
        }
        if packet.pointee.flags & AV_PKT_FLAG_KEY != 0 {
            gops.append([])
            keyPicturesAwaited += 1
        } else if gops.isEmpty {
            gops.append([])  // a stream that starts between key frames, or after letting go
        }
        guard let copy = spare.popLast() ?? av_packet_alloc() else { return }
        guard av_packet_ref(copy, packet) >= 0 else {
            spare.append(copy)
            return
        }
        gops[gops.count - 1].append(copy)
        keptPacketCount += 1
    }

    private func recycle(_ gop: [UnsafeMutablePointer<AVPacket>]) {
        for packet in gop {
            av_packet_unref(packet)
            spare.append(packet)
        }
    }

    private func forgetPackets() {
        for gop in gops { recycle(gop) }
        gops.removeAll(keepingCapacity: true)
        keptPacketCount = 0
        keyPicturesAwaited = 0
    }
}
