import CFFmpeg
import CHPlayerShim
import Glibc

/// A libswscale conversion of pictures of one size and format to another: the owner of its
/// SwsContext.
final class ScaleContext {
    private let context: OpaquePointer

    /// Reads pictures like `source` (size, format, colour matrix and range) and writes
    /// `width` × `height` pictures in `format`.
    /// - Parameter flags: SWS_* flags: the scaling algorithm and its options.
    init(like source: UnsafePointer<AVFrame>, width: Int32, height: Int32, format: AVPixelFormat,
         flags: Int32) throws(FFmpegError) {
        let sourceFormat = AVPixelFormat(rawValue: source.pointee.format)
        guard let context = sws_getContext(source.pointee.width, source.pointee.height, sourceFormat,
                                           width, height, format, flags, nil, nil, nil) else {
            throw FFmpegError(hp_averror(EINVAL))
        }
        self.context = context
        try useColorDetails(of: source)
    }

    deinit { sws_freeContext(context) }

    /// `source` converted into `destination`, an empty frame that gets buffers of its own.
    func scale(_ source: UnsafePointer<AVFrame>, into destination: Frame) throws(FFmpegError) {
        try FFmpegError.check(sws_scale_frame(context, destination.avFrame, source))
    }

    /// The YUV matrix and range the stream declares, where libswscale would otherwise assume
    /// BT.601 and the range of the pixel format (HD video is mostly BT.709).
    private func useColorDetails(of source: UnsafePointer<AVFrame>) throws(FFmpegError) {
        var inverseTable: UnsafeMutablePointer<Int32>?
        var table: UnsafeMutablePointer<Int32>?
        var sourceRange: Int32 = 0
        var destinationRange: Int32 = 0
        var brightness: Int32 = 0
        var contrast: Int32 = 0
        var saturation: Int32 = 0
        guard sws_getColorspaceDetails(context, &inverseTable, &sourceRange, &table, &destinationRange,
                                       &brightness, &contrast, &saturation) >= 0 else { return }
        switch source.pointee.color_range {
        case AVCOL_RANGE_JPEG: sourceRange = 1
        case AVCOL_RANGE_MPEG: sourceRange = 0
        default: break
        }
        let matrix = sws_getCoefficients(Int32(source.pointee.colorspace.rawValue))
        try FFmpegError.check(sws_setColorspaceDetails(context, matrix, sourceRange, table, destinationRange,
                                                       brightness, contrast, saturation))
    }
}
