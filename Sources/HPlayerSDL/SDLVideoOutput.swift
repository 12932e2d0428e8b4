import HPlayerKit

/// Pictures in the desktop window. Takes IYUV (YUV 4:2:0 planar), NV12 and BGRA as they are;
/// the decoder converts anything else once.
public final class SDLVideoOutput: VideoOutput, Sendable {
    private let window: SDLWindow

    public init(window: SDLWindow) {
        self.window = window
    }

    public var acceptedPixelFormats: [PixelFormat]? { [.yuv420p, .nv12, .bgra] }

    public func open(renderer: VideoRendering, format: VideoFormat) throws(MediaError) {
        window.attach(renderer: renderer, format: format)
    }

    public func start() { window.start() }
    /// Returns once no refresh is under way.
    public func pause() { window.pause() }
    public func requestRefresh() { window.requestRefresh() }
    /// Lets go of the video; the window stays until the program closes it.
    public func close() { window.detach() }
}
