import CFFmpeg
import CHPlayerShim
import Glibc

/// Converts pictures the video output cannot take to one it can, with libswscale.
final class PixelConverter {
    /// The formats the output takes; nil when it takes any.
    private let accepted: [AVPixelFormat]?
    private var scaler: OpaquePointer?
    /// The last source format and the target chosen for it: the choice is made once.
    private var chosen: (source: AVPixelFormat, target: AVPixelFormat)?

    init(accepted: [AVPixelFormat]?) {
        self.accepted = accepted
    }

    deinit { sws_freeContext(scaler) }

    func needsConversion(_ format: AVPixelFormat) -> Bool {
        guard let accepted else { return false }
        return !accepted.contains(format)
    }

    /// The accepted format that loses least from `format`.
    func targetFormat(for format: AVPixelFormat) -> AVPixelFormat {
        guard let accepted, !accepted.isEmpty else { return format }
        let list = accepted + [AV_PIX_FMT_NONE]
        let best = list.withUnsafeBufferPointer {
            avcodec_find_best_pix_fmt_of_list($0.baseAddress, format, 0, nil)
        }
        return best == AV_PIX_FMT_NONE ? accepted[0] : best
    }

    /// Writes `source` converted to the best accepted format into the empty frame `output`.
    func convert(_ source: UnsafeMutablePointer<AVFrame>, into output: Frame) throws(FFmpegError) {
        let destination = output.avFrame
        let width = source.pointee.width
        let height = source.pointee.height
        let sourceFormat = AVPixelFormat(rawValue: source.pointee.format)
        let target: AVPixelFormat
        if let chosen, chosen.source == sourceFormat {
            target = chosen.target
        } else {
            target = targetFormat(for: sourceFormat)
            chosen = (sourceFormat, target)
        }
        scaler = sws_getCachedContext(scaler, width, height, sourceFormat, width, height, target,
                                      SWS_BILINEAR, nil, nil, nil)
        guard scaler != nil else { throw FFmpegError(hp_averror(EINVAL)) }
        let alignment: Int32 = 32
        let size = av_image_get_buffer_size(target, width, height, alignment)
        guard size > 0 else { throw FFmpegError(size) }
        let data = output.ownedStorage(size: Int(size))
        destination.pointee.format = target.rawValue
        destination.pointee.width = width
        destination.pointee.height = height
        destination.pointee.sample_aspect_ratio = source.pointee.sample_aspect_ratio
        let filled = destination.withPlanes { planes, strides in
            av_image_fill_arrays(planes, strides, data, target, width, height, alignment)
        }
        guard filled >= 0 else { throw FFmpegError(filled) }
        source.withPlanes { sourcePlanes, sourceStrides in
            destination.withPlanes { planes, strides in
                sourcePlanes.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: Int(AV_NUM_DATA_POINTERS)) { constPlanes in
                    _ = sws_scale(scaler, constPlanes, sourceStrides, 0, height, planes, strides)
                }
            }
        }
    }
}
