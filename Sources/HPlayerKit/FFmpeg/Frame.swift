import CFFmpeg

/// A decoded picture or block of samples, as it travels from a decode loop to an output.
///
/// Owns one AVFrame; `reset` unreferences its buffers (which return to libavcodec's or the
/// converter's buffer pool) and keeps the struct, so frames are reused through a pool.
public final class Frame: @unchecked Sendable {
    public let avFrame: UnsafeMutablePointer<AVFrame>
    /// Position on the playback timeline in seconds: the stream's pts plus, when looping, the
    /// length of the passes before. What sync compares with the master clock.
    public internal(set) var pts: Double = 0
    /// The pts as the container gives it, in seconds (pts_time in ffprobe's words).
    public internal(set) var mediaPts: Double = 0
    public internal(set) var duration: Double = 0
    /// The seek serial the frame was decoded under; renderers drop frames of an older serial.
    public internal(set) var serial = 0
    public internal(set) var loopPass = 0
    /// Audio only: samples at the start already handed to the output, or trimmed by an exact seek.
    var consumedSamples = 0

    init() {
        guard let frame = av_frame_alloc() else { fatalError("av_frame_alloc: out of memory") }
        avFrame = frame
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = avFrame
        av_frame_free(&frame)
    }

    func reset() {
        av_frame_unref(avFrame)
        consumedSamples = 0
        loopPass = 0
    }

    public var width: Int { Int(avFrame.pointee.width) }
    public var height: Int { Int(avFrame.pointee.height) }
    public var pixelFormat: AVPixelFormat { AVPixelFormat(rawValue: avFrame.pointee.format) }
    public var sampleCount: Int { Int(avFrame.pointee.nb_samples) }

    /// The start of plane `index` (interleaved audio has one).
    public func plane(_ index: Int) -> UnsafeMutablePointer<UInt8>? {
        withUnsafeBytes(of: avFrame.pointee.data) { $0.load(fromByteOffset: index * MemoryLayout<UnsafeMutablePointer<UInt8>?>.stride, as: UnsafeMutablePointer<UInt8>?.self) }
    }

    public func lineSize(_ index: Int) -> Int {
        withUnsafeBytes(of: avFrame.pointee.linesize) { Int($0.load(fromByteOffset: index * MemoryLayout<Int32>.stride, as: Int32.self)) }
    }
}
