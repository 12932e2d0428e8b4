/// What `VideoRendering.refresh(at:)` answers: the frame to show, and when to ask again.
public struct VideoRefresh: Sendable {
    /// The frame to present now, if a new one is due.
    public var frame: Frame?
    /// The monotonic time the next frame is due, when known: an output without a display clock
    /// sleeps until then.
    public var nextDeadline: Double?

    /// A refresh's answer, as the fields say.
    public init(frame: Frame?, nextDeadline: Double?) {
        self.frame = frame
        self.nextDeadline = nextDeadline
    }
}

/// The player's side of a video output: picks the frame for each refresh against the clock.
///
/// Called on the output's refresh thread, one call at a time. Never close the player from it:
/// closing joins that thread.
public protocol VideoRendering: AnyObject, Sendable {
    /// The frame due at `time` (`MonotonicClock.now()` seconds, when the refresh shows), with
    /// the late ones before it dropped; nil frame when the one shown stays. Present the frame,
    /// then call `didPresent`.
    func refresh(at time: Double) -> VideoRefresh
    /// The output has shown `frame` (it keeps no reference to it after this call).
    func didPresent(_ frame: Frame, at time: Double)
    /// The subtitle to show over the frame of media time `pts` (its `mediaPts`); nil for none.
    /// Cheap while the answer stays the same, so it may be asked at every refresh.
    func subtitle(atMediaPts pts: Double) -> ShownSubtitle?
}

/// A picture output that asks for a frame at each refresh of its display. The player calls
/// `open` on the source's read thread when the media opens, `start` and `pause` on whichever
/// thread applies its requests, `requestRefresh` from any thread, and `close` on the thread
/// that closes it.
public protocol VideoOutput: AnyObject, Sendable {
    /// The pixel formats it takes; nil when it takes any. Others are converted by the decoder.
    var acceptedPixelFormats: [PixelFormat]? { get }
    /// Prepares the output for pictures of `format` (their size before rotation, their aspect);
    /// no refresh runs until `start` or `requestRefresh`. Throwing fails the opening of the
    /// media with that error.
    func open(renderer: VideoRendering, format: VideoFormat) throws(MediaError)
    /// Refreshes run.
    func start()
    /// Refreshes stop; the picture shown stays. Returns only once no call into the renderer is
    /// under way: right after, the player freezes its clock or moves the renderer to a seek's
    /// frames, and relies on no refresh of before being in progress.
    func pause()
    /// One refresh even while paused: the first frame after open or after a seek, a subtitle
    /// changed on a paused picture.
    func requestRefresh()
    /// Stops for good and joins the output's threads: no refresh runs after it returns.
    func close()
}
