/// What a video refresh asks the player for.
public struct VideoRefresh: Sendable {
    /// The frame to present now, if a new one is due.
    public var frame: Frame?
    /// The monotonic time the next frame is due, when known: an output without a display clock
    /// sleeps until then.
    public var nextDeadline: Double?

    public init(frame: Frame?, nextDeadline: Double?) {
        self.frame = frame
        self.nextDeadline = nextDeadline
    }
}

/// The player's side of a video output: picks the frame for each refresh against the clock.
public protocol VideoRendering: AnyObject, Sendable {
    func refresh(at time: Double) -> VideoRefresh
    /// The output has shown `frame` (it keeps no reference to it after this call).
    func didPresent(_ frame: Frame, at time: Double)
    /// The subtitle to show over the frame of media time `pts` (its `mediaPts`); nil for none.
    /// Cheap while the answer stays the same, so it may be asked at every refresh.
    func subtitle(atMediaPts pts: Double) -> ShownSubtitle?
}

/// A picture output that asks for a frame at each refresh of its display.
public protocol VideoOutput: AnyObject, Sendable {
    /// The pixel formats it takes; nil when it takes any. Others are converted by the decoder.
    var acceptedPixelFormats: [PixelFormat]? { get }
    func open(renderer: VideoRendering, format: VideoFormat) throws(MediaError)
    /// Refreshes run.
    func start()
    /// Refreshes stop; the picture shown stays.
    func pause()
    /// One refresh even while paused: the first frame after open or after a seek.
    func requestRefresh()
    /// Stops for good and joins the output's threads.
    func close()
}
