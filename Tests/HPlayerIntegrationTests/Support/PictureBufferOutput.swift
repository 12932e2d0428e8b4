import CFFmpeg
@testable import HPlayerKit

/// A null video output that notes, for each picture on its way to be presented, where its
/// memory lies: whether in a buffer pool's buffer (with software decoding, libavcodec's pool of
/// decoded pictures) or in memory allocated for it (a copy, as av_frame_get_buffer or a
/// conversion makes), and at which address.
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
            // A pool's buffer carries its pool entry as opaque; av_buffer_alloc's carries none,
            // and a picture converted into the player's own storage has no buffer at all.
            let buffer = frame.avFrame.pointee.buf.0
            let isPooled = buffer.map { av_buffer_get_opaque($0) != nil } ?? false
            let address = UInt(bitPattern: buffer?.pointee.data ?? frame.avFrame.pointee.data.0)
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
