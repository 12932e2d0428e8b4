import CFFmpeg

/// The MD5 of a picture in its own pixel format with its planes packed without padding: what
/// `ffmpeg -f framemd5` prints for the frame (rawvideo's av_image_copy_to_buffer with alignment 1).
/// Used by one output thread at a time.
final class FrameMD5: @unchecked Sendable {
    private let context: OpaquePointer

    init() {
        guard let context = av_md5_alloc() else { fatalError("av_md5_alloc: out of memory") }
        self.context = context
    }

    deinit {
        var pointer: UnsafeMutableRawPointer? = UnsafeMutableRawPointer(context)
        av_freep(&pointer)
    }

    /// The lowercase hex digest of `frame`'s picture.
    func digest(of frame: Frame) -> String {
        av_md5_init(context)
        let format = frame.avPixelFormat
        guard let descriptor = av_pix_fmt_desc_get(format) else { return "" }
        var lineSizes = (Int32(0), Int32(0), Int32(0), Int32(0))
        withUnsafeMutablePointer(to: &lineSizes) {
            $0.withMemoryRebound(to: Int32.self, capacity: 4) { _ = av_image_fill_linesizes($0, format, Int32(frame.width)) }
        }
        let packedLineSizes = [lineSizes.0, lineSizes.1, lineSizes.2, lineSizes.3]
        let planeCount = Int(av_pix_fmt_count_planes(format))
        let isPaletted = descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_PAL) != 0
        for plane in 0..<min(planeCount, 4) {
            guard let data = frame.plane(plane) else { continue }
            let isChroma = plane == 1 || plane == 2
            let shift = isChroma ? Int(descriptor.pointee.log2_chroma_h) : 0
            let rows = (frame.height + (1 << shift) - 1) >> shift
            let bytes = Int(packedLineSizes[plane])
            let stride = frame.lineSize(plane)
            for row in 0..<rows {
                av_md5_update(context, data + row * stride, bytes)
            }
        }
        if isPaletted, let palette = frame.plane(1) {
            av_md5_update(context, palette, 256 * 4)
        }
        var digest = [UInt8](repeating: 0, count: 16)
        av_md5_final(context, &digest)
        return digest.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
