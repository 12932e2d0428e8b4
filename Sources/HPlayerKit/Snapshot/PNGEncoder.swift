import CFFmpeg

/// Pictures to the bytes of PNG files, with libavcodec's PNG encoder.
enum PNGEncoder {
    /// `picture` (RGB24 or RGBA) as a PNG file.
    static func encode(_ picture: Frame) throws(MediaError) -> [UInt8] {
        let codec = try CodecContext(encoder: AV_CODEC_ID_PNG) { context in
            context.pointee.width = picture.avFrame.pointee.width
            context.pointee.height = picture.avFrame.pointee.height
            context.pointee.pix_fmt = picture.avPixelFormat
            // Needed to open an encoder; one picture has no timing.
            context.pointee.time_base = AVRational(num: 1, den: 1)
        }
        let packet = Packet()
        do {
            try FFmpegError.check(avcodec_send_frame(codec.context, picture.avFrame))
            try FFmpegError.check(avcodec_receive_packet(codec.context, packet.avPacket))
        } catch {
            throw MediaError(input: "png", reason: "cannot encode: \(error)")
        }
        return Array(UnsafeBufferPointer(start: packet.avPacket.pointee.data, count: Int(packet.avPacket.pointee.size)))
    }
}
