import CFFmpeg
import CHPlayerShim
import Glibc

/// A decoded picture as it is shown: in RGB (RGBA when it has alpha), at its display size and
/// turned upright.
///
/// The display width is the width times the sample aspect ratio, rounded to the nearest pixel
/// (`VideoFormat.displaySize`, as the window sizes it), not to an even number.
enum UprightPicture {
    /// ffmpeg's command line converts and scales with bicubic libswscale and no other flags:
    /// with the same, the pixels are the ones it extracts.
    static let scaleFlags = SWS_BICUBIC

    static func make(from decoded: Frame, format: VideoFormat) throws(FFmpegError) -> Frame {
        let hasAlpha = av_pix_fmt_desc_get(decoded.avPixelFormat).map { $0.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0 } ?? false
        let target = hasAlpha ? AV_PIX_FMT_RGBA : AV_PIX_FMT_RGB24
        // The frame's own size: a stream can change size midway.
        let size = VideoFormat(width: decoded.width, height: decoded.height,
                               sampleAspectRatio: format.sampleAspectRatio).displaySize
        let scaler = try ScaleContext(like: decoded.avFrame, width: Int32(size.width), height: Int32(size.height),
                                      format: target, flags: scaleFlags)
        let converted = Frame()
        try scaler.scale(decoded.avFrame, into: converted)
        return try turned(converted, clockwise: format.rotation, bytesPerPixel: hasAlpha ? 4 : 3)
    }

    /// `picture`, packed pixels of `bytesPerPixel` bytes, turned `degrees` clockwise (90, 180
    /// or 270; any other angle leaves it as it is).
    private static func turned(_ picture: Frame, clockwise degrees: Int, bytesPerPixel: Int) throws(FFmpegError) -> Frame {
        guard [90, 180, 270].contains(degrees), let source = picture.plane(0) else { return picture }
        let width = picture.width
        let height = picture.height
        let result = Frame()
        result.avFrame.pointee.format = picture.avFrame.pointee.format
        result.avFrame.pointee.width = Int32(degrees == 180 ? width : height)
        result.avFrame.pointee.height = Int32(degrees == 180 ? height : width)
        try FFmpegError.check(av_frame_get_buffer(result.avFrame, 0))
        guard let destination = result.plane(0) else { throw FFmpegError(hp_averror(ENOMEM)) }
        let sourceStride = picture.lineSize(0)
        let destinationStride = result.lineSize(0)
        for y in 0..<height {
            for x in 0..<width {
                // Where pixel (x, y) lands: turning clockwise, the top row becomes the right column.
                let (column, row) = switch degrees {
                case 90: (height - 1 - y, x)
                case 180: (width - 1 - x, height - 1 - y)
                default: (y, width - 1 - x)
                }
                (destination + row * destinationStride + column * bytesPerPixel)
                    .update(from: source + y * sourceStride + x * bytesPerPixel, count: bytesPerPixel)
            }
        }
        return result
    }
}
