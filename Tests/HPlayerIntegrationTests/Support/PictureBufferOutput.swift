import CFFmpeg
@testable import HPlayerKit

/// A null video output that notes, for each picture on its way to be presented, where its
/// memory lies: whether in a buffer pool's buffer (libavcodec's pool of decoded pictures) or in
/// one allocated for it (a copy, as av_frame_get_buffer makes), and at which address.
final class PictureBufferOutput: VideoOutput, @unchecked Sendable {
    struct Noted: Sendable {
        var count = 0
        var unpooled = 0
        var addresses: Set<UInt> = []
    }

    private let noted = Locked(Noted())
    private let inner = NullVideoOutput()

    var pictures: Noted { noted.withLock { $0 } }
    var acceptedPixelFormats: [PixelFormat]? { nil }

    func open(renderer: VideoRendering, format: VideoFormat) throws(MediaError) {
        try inner.open(renderer: CapturingRenderer(inner: renderer) { [noted] frame in
            guard let buffer = frame.avFrame.pointee.buf.0 else { return }
            // A pool's buffer carries its pool entry as opaque; av_buffer_alloc's carries none.
            let isPooled = av_buffer_get_opaque(buffer) != nil
            let address = UInt(bitPattern: buffer.pointee.data)
            noted.withLock {
                $0.count += 1
                if !isPooled { $0.unpooled += 1 }
                $0.addresses.insert(address)
            }
        }, format: format)
    }

    func start() { inner.start() }
    func pause() { inner.pause() }
    func requestRefresh() { inner.requestRefresh() }
    func close() { inner.close() }
}
