import CFFmpeg
import CHPlayerShim

/// FFmpeg's native AAC encoder (AAC-LC), fed interleaved float samples in blocks of any length:
/// it cuts them into the encoder's frames (1024 samples) and numbers them by sample. Opened on
/// one thread, then used by one encode thread only.
final class AudioEncoder: @unchecked Sendable {
    let name = "aac"
    private let codec: CodecContext
    var context: UnsafeMutablePointer<AVCodecContext> { codec.context }
    let sampleRate: Int
    let channelCount: Int
    /// Samples per encoded frame.
    private let frameSize: Int
    /// Interleaved samples waiting for a whole frame; never more than a frame's and a block's.
    private var pending: [Float] = []
    /// The pts of the first pending sample, in samples.
    private var pendingPts: Int64?
    private let frame: UnsafeMutablePointer<AVFrame>
    private let packet: UnsafeMutablePointer<AVPacket>

    /// The sample rates the AAC encoder takes: AAC's sampling-frequency table, which ADTS indexes.
    static let sampleRates = ADTSHeader.sampleRates

    /// The layouts AAC has a channel configuration for (ISO/IEC 14496-3 table 1.19), which the
    /// encoder writes without a program config element, so ADTS can carry them. (FFmpeg's default
    /// for three channels, 2.1, would need one; seven channels always do.)
    static let layoutNames = [1: "mono", 2: "stereo", 3: "3.0", 4: "4.0", 5: "5.0", 6: "5.1", 8: "7.1"]

    /// The rate to encode at: `asked`, else the source's when AAC takes it, else 48 kHz.
    static func sampleRate(asked: Int?, source: Int) -> Int {
        asked ?? (sampleRates.contains(source) ? source : 48000)
    }

    init(settings: AudioEncodeSettings, sourceRate: Int, sourceChannels: Int, globalHeader: Bool) throws(MediaError) {
        let rate = Self.sampleRate(asked: settings.sampleRate, source: sourceRate)
        let channels = settings.channelCount ?? min(sourceChannels, 8)
        guard Self.sampleRates.contains(rate) else {
            throw MediaError(input: "aac", reason: "AAC cannot encode at \(rate) Hz")
        }
        guard (1...8).contains(channels) else {
            throw MediaError(input: "aac", reason: "AAC cannot encode \(channels) channels here (1 to 8)")
        }
        sampleRate = rate
        channelCount = channels
        codec = try CodecContext(encoderNamed: "aac") { context in
            context.pointee.sample_rate = Int32(rate)
            context.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
            if let name = Self.layoutNames[channels] {
                av_channel_layout_from_string(&context.pointee.ch_layout, name)
            } else {
                av_channel_layout_default(&context.pointee.ch_layout, Int32(channels))
            }
            context.pointee.bit_rate = Int64(settings.bitRate)
            context.pointee.time_base = AVRational(num: 1, den: Int32(rate))
            if globalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
            return 0
        }
        frameSize = Int(codec.context.pointee.frame_size)
        pending.reserveCapacity((frameSize + 8192) * channels)
        guard let frame = av_frame_alloc(), let packet = av_packet_alloc() else { fatalError("av_*_alloc: out of memory") }
        self.frame = frame
        self.packet = packet
        frame.pointee.nb_samples = Int32(frameSize)
        frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        frame.pointee.sample_rate = Int32(rate)
        av_channel_layout_copy(&frame.pointee.ch_layout, &codec.context.pointee.ch_layout)
        guard av_frame_get_buffer(frame, 0) >= 0 else { fatalError("av_frame_get_buffer: out of memory") }
    }

    deinit {
        var ownedFrame: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&ownedFrame)
        var ownedPacket: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&ownedPacket)
    }

    /// The audio object type its packets are: 2, AAC-LC.
    var objectType: Int { Int(context.pointee.profile) + 1 }

    /// Takes `count` interleaved samples per channel starting at sample `pts` (the first block's
    /// pts starts the count; later blocks follow on without gaps) and hands each packet that
    /// comes out to `deliver`.
    func encode(_ samples: UnsafePointer<Float>, count: Int, pts: Int64,
                deliver: (UnsafeMutablePointer<AVPacket>) throws(MediaError) -> Void) throws(MediaError) {
        if pendingPts == nil { pendingPts = pts }
        pending.append(contentsOf: UnsafeBufferPointer(start: samples, count: count * channelCount))
        var offset = 0
        while pending.count - offset >= frameSize * channelCount {
            try send(from: offset, samples: frameSize, deliver: deliver)
            offset += frameSize * channelCount
        }
        pending.removeFirst(offset)
    }

    /// Sends what is pending as a last, short frame, then drains the encoder.
    func finish(deliver: (UnsafeMutablePointer<AVPacket>) throws(MediaError) -> Void) throws(MediaError) {
        if !pending.isEmpty { try send(from: 0, samples: pending.count / channelCount, deliver: deliver) }
        pending.removeAll()
        try receive(after: avcodec_send_frame(context, nil), deliver: deliver)
    }

    private func send(from offset: Int, samples: Int, deliver: (UnsafeMutablePointer<AVPacket>) throws(MediaError) -> Void) throws(MediaError) {
        // The same buffer each time, unless the encoder still holds the last frame (a copy then).
        frame.pointee.nb_samples = Int32(frameSize)
        guard av_frame_make_writable(frame) >= 0 else { throw MediaError(input: name, reason: "out of memory") }
        frame.pointee.nb_samples = Int32(samples)
        pending.withUnsafeBufferPointer { interleaved in
            for channel in 0..<channelCount {
                let plane = UnsafeMutableRawPointer(frame.pointee.extended_data[channel]!).assumingMemoryBound(to: Float.self)
                for index in 0..<samples { plane[index] = interleaved[offset + index * channelCount + channel] }
            }
        }
        frame.pointee.pts = pendingPts!
        pendingPts! += Int64(samples)
        try receive(after: avcodec_send_frame(context, frame), deliver: deliver)
    }

    private func receive(after sent: Int32, deliver: (UnsafeMutablePointer<AVPacket>) throws(MediaError) -> Void) throws(MediaError) {
        guard sent >= 0 || sent == hp_averror_eof() else { throw MediaError(input: name, reason: "cannot encode: \(FFmpegError(sent))") }
        while true {
            let received = avcodec_receive_packet(context, packet)
            if received == hp_averror_eagain() || received == hp_averror_eof() { return }
            guard received >= 0 else { throw MediaError(input: name, reason: "cannot encode: \(FFmpegError(received))") }
            defer { av_packet_unref(packet) }
            try deliver(packet)
        }
    }
}
