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
    private let makeSoftware: () throws(MediaError) -> Decoder

    /// References to the packets sent since the last key frame (the payloads are shared, not
    /// copied), and spare packets to take the next ones.
    private var sinceKeyframe: [UnsafeMutablePointer<AVPacket>] = []
    private var spare: [UnsafeMutablePointer<AVPacket>] = []
    /// What was given out since the last key frame: the pts of the last picture (nil when the
    /// stream has none) and how many pictures.
    private var lastGivenPts: Int64?
    private var givenSinceKeyframe = 0
    /// After the switch: the replayed pictures are skipped until one comes after those given.
    private var isSkippingReplayed = false
    private var skipped = 0
    /// Pictures the software decoder gave while the packets were replayed, to give out next.
    private var pending: [UnsafeMutablePointer<AVFrame>] = []
    /// The end was sent (a nil packet): the software decoder is drained too after the replay.
    private var isDraining = false

    init(primary: Decoder, api: HardwareAPI, input: String, makeSoftware: @escaping () throws(MediaError) -> Decoder) {
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
        dropPending()
    }

    /// Whether the hardware decoder still decodes.
    var isDecodingInHardware: Bool { isHardware }

    func send(_ packet: UnsafeMutablePointer<AVPacket>?) -> DecoderStatus {
        if packet == nil { isDraining = true }
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
        if !pending.isEmpty {
            var first: UnsafeMutablePointer<AVFrame>? = pending.removeFirst()
            av_frame_move_ref(frame, first)
            av_frame_free(&first)
            return .ok
        }
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
        dropPending()
        lastGivenPts = nil
        givenSinceKeyframe = 0
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
        do { software = try makeSoftware() } catch {
            Log.track.error("\(input): the \(api.rawValue) decoder failed, and software decoding cannot start: \(error.reason)")
            return .failed(FFmpegError(hp_averror(EIO)))
        }
        Log.track.warning("\(input): the \(api.rawValue) decoder failed (\(error)): decoding in software from the last key frame")
        software.skipsNonReferenceFrames = current.skipsNonReferenceFrames
        current = software
        isHardware = false
        isSkippingReplayed = true
        skipped = 0
        for packet in sinceKeyframe {
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
    /// them, else by count since the key frame.
    private func wasGiven(_ frame: UnsafeMutablePointer<AVFrame>) -> Bool {
        let pts = frame.pointee.best_effort_timestamp
        if let lastGivenPts, pts != noTimestamp { return pts <= lastGivenPts }
        skipped += 1
        return skipped <= givenSinceKeyframe
    }

    private func noteGiven(_ frame: UnsafeMutablePointer<AVFrame>) {
        let pts = frame.pointee.best_effort_timestamp
        if pts != noTimestamp { lastGivenPts = pts }
        givenSinceKeyframe += 1
    }

    // MARK: Packets since the key frame

    private func keep(_ packet: UnsafeMutablePointer<AVPacket>) {
        if packet.pointee.flags & AV_PKT_FLAG_KEY != 0 {
            forgetPackets()
            givenSinceKeyframe = 0
        }
        guard let copy = spare.popLast() ?? av_packet_alloc() else { return }
        guard av_packet_ref(copy, packet) >= 0 else {
            spare.append(copy)
            return
        }
        sinceKeyframe.append(copy)
    }

    private func forgetPackets() {
        for packet in sinceKeyframe {
            av_packet_unref(packet)
            spare.append(packet)
        }
        sinceKeyframe.removeAll(keepingCapacity: true)
    }

    private func dropPending() {
        for frame in pending {
            var owned: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&owned)
        }
        pending.removeAll()
    }
}
