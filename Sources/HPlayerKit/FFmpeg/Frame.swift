import CFFmpeg

/// A decoded picture or block of samples, as it travels from a decode loop to an output.
///
/// Owns one AVFrame; `reset` unreferences its buffers (which return to libavcodec's or the
/// converter's buffer pool) and keeps the struct, so frames are reused through a pool.
public final class Frame: @unchecked Sendable {
    let avFrame: UnsafeMutablePointer<AVFrame>
    /// Position on the playback timeline in seconds: the stream's pts plus, when looping, the
    /// length of the passes before. What sync compares with the master clock.
    public internal(set) var pts: Double = 0
    /// The pts in the media, in seconds: as the container gives it (pts_time in ffprobe's words),
    /// except after a jump in the stream's timestamps, which is smoothed over.
    public internal(set) var mediaPts: Double = 0
    /// Seconds the picture is shown, or the samples last; 0 when the stream does not say.
    public internal(set) var duration: Double = 0
    /// The seek serial the frame was decoded under; renderers drop frames of an older serial.
    public internal(set) var serial = 0
    /// Which pass of a loop the frame belongs to (0: the first).
    package internal(set) var loopPass = 0
    /// Audio only: samples at the start already handed to the output, or trimmed by an exact seek.
    var consumedSamples = 0
    /// Audio only: media seconds per second of these samples (the speed they were stretched for;
    /// 1 as decoded).
    var tempo = 1.0
    /// A converted frame's pixels or samples: owned by this wrapper and kept across reuses, so
    /// converting allocates nothing once the pool is warm. Decoded frames use libavcodec's buffers.
    private var storage: UnsafeMutableRawPointer?
    private var storageSize = 0
    /// Made to receive conversions (it returns to the track's conversion pool).
    let isConversionTarget: Bool

    init(isConversionTarget: Bool = false) {
        guard let frame = av_frame_alloc() else { fatalError("av_frame_alloc: out of memory") }
        avFrame = frame
        self.isConversionTarget = isConversionTarget
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = avFrame
        av_frame_free(&frame)
        storage?.deallocate()
    }

    /// At least `size` bytes of this frame's own storage, 64-byte aligned; grown only when a
    /// larger picture or block of samples comes. The AVFrame stays unreferenced (no buf[0]), so
    /// av_frame_unref leaves the storage alone.
    func ownedStorage(size: Int) -> UnsafeMutablePointer<UInt8> {
        if size > storageSize {
            storage?.deallocate()
            storage = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64)
            storageSize = size
        }
        return storage!.assumingMemoryBound(to: UInt8.self)
    }

    func reset() {
        av_frame_unref(avFrame)
        consumedSamples = 0
        tempo = 1
        loopPass = 0
    }

    /// A picture's width in pixels (0 for audio).
    public var width: Int { Int(avFrame.pointee.width) }
    /// A picture's height in pixels (0 for audio).
    public var height: Int { Int(avFrame.pointee.height) }
    /// A picture's pixel format: one of the output's `acceptedPixelFormats` when it names any.
    public var pixelFormat: PixelFormat { PixelFormat(avPixelFormat) }
    /// Width / height of one pixel, as the decoder gives it; nil when unspecified.
    public var sampleAspectRatio: Double? {
        let ratio = avFrame.pointee.sample_aspect_ratio
        return ratio.num > 0 && ratio.den > 0 ? Double(ratio.num) / Double(ratio.den) : nil
    }
    var avPixelFormat: AVPixelFormat { AVPixelFormat(rawValue: avFrame.pointee.format) }
    /// Audio: samples per channel in the frame (0 for a picture).
    public var sampleCount: Int { Int(avFrame.pointee.nb_samples) }

    /// The start of plane `index` (interleaved audio has one).
    public func plane(_ index: Int) -> UnsafeMutablePointer<UInt8>? {
        withUnsafeBytes(of: avFrame.pointee.data) { $0.load(fromByteOffset: index * MemoryLayout<UnsafeMutablePointer<UInt8>?>.stride, as: UnsafeMutablePointer<UInt8>?.self) }
    }

    /// Bytes from one row of plane `index` to the next, padding included (audio: the plane's size).
    public func lineSize(_ index: Int) -> Int {
        withUnsafeBytes(of: avFrame.pointee.linesize) { Int($0.load(fromByteOffset: index * MemoryLayout<Int32>.stride, as: Int32.self)) }
    }
}

extension Frame {
    /// Copies the timing of `source` onto this converted frame.
    func takeTimes(from source: Frame, movedBack delay: Double, sampleRate: Int?) {
        pts = source.pts - delay
        mediaPts = source.mediaPts - delay
        serial = source.serial
        loopPass = source.loopPass
        if let sampleRate, sampleRate > 0 {
            duration = Double(sampleCount) / Double(sampleRate)
        } else {
            duration = source.duration
        }
    }
}
