import CFFmpeg

/// How many decoded pictures a video track queues: a few large ones, more small ones.
///
/// Queued pictures are most of a player's memory: eight 1080p pictures are 25 MB, eight 4K ones
/// 100 MB. A queue of four still covers a decode hiccup of two frame durations (the decode loop
/// refills from half), as ffplay does with three.
enum FrameQueueSizing {
    static let minimumVideoFrames = 4

    /// The largest power of two (the ring buffer's sizes) of pictures of `frameBytes` that fits
    /// `budget`, between `minimumVideoFrames` and `maximum`; `maximum` when the size is unknown.
    static func videoCapacity(frameBytes: Int, budget: Int, maximum: Int) -> Int {
        guard frameBytes > 0 else { return maximum }
        var capacity = minimumVideoFrames
        while capacity * 2 <= maximum, capacity * 2 * frameBytes <= budget { capacity *= 2 }
        return min(capacity, max(maximum, 2))
    }

    /// The bytes of one decoded picture of the stream, 0 when the stream does not say.
    static func pictureBytes(_ parameters: AVCodecParameters) -> Int {
        guard parameters.width > 0, parameters.height > 0 else { return 0 }
        let format = AVPixelFormat(rawValue: parameters.format)
        let bytes = av_image_get_buffer_size(format, parameters.width, parameters.height, 1)
        // Unknown until decoded: 4:2:0 at 8 bits, the common case.
        return bytes > 0 ? Int(bytes) : Int(parameters.width) * Int(parameters.height) * 3 / 2
    }
}
