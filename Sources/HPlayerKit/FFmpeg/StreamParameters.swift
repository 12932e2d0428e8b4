import CFFmpeg

/// A stream's codec parameters and time base, copied: what a decoder is opened from, kept past
/// the AVStream they came from. A sectioned stream's demuxer (fMP4 after a seek or a variant
/// switch) is closed and opened anew, and its streams with it, while the tracks made for the
/// first ones decode on.
final class StreamParameters: @unchecked Sendable {
    let parameters: UnsafeMutablePointer<AVCodecParameters>
    let timeBase: AVRational

    init(_ stream: UnsafeMutablePointer<AVStream>) throws(MediaError) {
        guard let copy = avcodec_parameters_alloc() else { throw MediaError(input: "a stream's codec parameters", reason: "out of memory") }
        let result = avcodec_parameters_copy(copy, stream.pointee.codecpar)
        guard result >= 0 else {
            var owned: UnsafeMutablePointer<AVCodecParameters>? = copy
            avcodec_parameters_free(&owned)
            throw MediaError(input: "a stream's codec parameters", reason: FFmpegError(result).description)
        }
        parameters = copy
        timeBase = stream.pointee.time_base
    }

    /// A packet's new codec configuration (AV_PKT_DATA_NEW_EXTRADATA, as a section's first packet
    /// after a change carries it) becomes the kept one: a decoder opened later opens with it.
    func takeNewExtradata(of packet: UnsafeMutablePointer<AVPacket>) {
        var size = 0
        guard let data = av_packet_get_side_data(packet, AV_PKT_DATA_NEW_EXTRADATA, &size), size > 0,
              let copy = av_mallocz(size + Int(AV_INPUT_BUFFER_PADDING_SIZE))?.assumingMemoryBound(to: UInt8.self) else { return }
        copy.update(from: data, count: size)
        av_freep(&parameters.pointee.extradata)
        parameters.pointee.extradata = copy
        parameters.pointee.extradata_size = Int32(size)
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecParameters>? = parameters
        avcodec_parameters_free(&owned)
    }
}
