import HPlayerKit

/// Pictures in the desktop window. Takes IYUV (YUV 4:2:0 planar), NV12 and BGRA as they are;
/// the decoder converts anything else once.
public final class SDLVideoOutput: VideoOutput, Sendable {
    private let window: SDLWindow

    /// Draws into `window`, which the program closes after the player.
    public init(window: SDLWindow) {
        self.window = window
    }

    /// What SDL's textures take as they are: IYUV, NV12, ARGB8888.
    public var acceptedPixelFormats: [PixelFormat]? { [.yuv420p, .nv12, .bgra] }

    /// Hands the renderer to the window's thread, which opens the window for `format` (or
    /// shows it again, at the picture's size, after a file without one).
    public func open(renderer: VideoRendering, format: VideoFormat) throws(MediaError) {
        window.attach(renderer: renderer, format: format)
    }

    /// Refreshes run, on the window's thread.
    public func start() { window.start() }
    /// Refreshes stop; returns once no refresh is under way.
    public func pause() { window.pause() }
    /// One refresh even while paused, on the window's thread.
    public func requestRefresh() { window.requestRefresh() }
    /// Lets go of the video; the window stays until the program closes it.
    public func close() { window.detach() }
}
