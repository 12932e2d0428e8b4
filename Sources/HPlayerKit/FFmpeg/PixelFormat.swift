import CFFmpeg

/// A picture's pixel format: libavutil's, wrapped so that the public API names no C type.
public struct PixelFormat: Hashable, Sendable, CustomStringConvertible {
    let av: AVPixelFormat

    init(_ av: AVPixelFormat) {
        self.av = av
    }

    /// Planar YUV 4:2:0, 8 bits (SDL's IYUV).
    public static let yuv420p = PixelFormat(AV_PIX_FMT_YUV420P)
    /// Semi-planar YUV 4:2:0: a luma plane and an interleaved chroma plane.
    public static let nv12 = PixelFormat(AV_PIX_FMT_NV12)
    /// 8-bit B, G, R, A in memory order (SDL's ARGB8888 on little-endian machines).
    public static let bgra = PixelFormat(AV_PIX_FMT_BGRA)

    /// libavutil's name for it: yuv420p, nv12, …
    public var description: String { av_get_pix_fmt_name(av).map { String(cString: $0) } ?? "none" }

    /// The same libavutil format.
    public static func == (lhs: PixelFormat, rhs: PixelFormat) -> Bool { lhs.av.rawValue == rhs.av.rawValue }
    /// Hashes the libavutil format.
    public func hash(into hasher: inout Hasher) { hasher.combine(av.rawValue) }
}
