import CFFmpeg

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

/// What a video output needs to know to show a stream: its size, its pixels' shape and how it
/// must be turned.
public struct VideoFormat: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// Width / height of one pixel (1 for square pixels).
    public var sampleAspectRatio: Double
    /// Clockwise degrees the picture must be turned to display upright: 0, 90, 180 or 270.
    public var rotation: Int

    public init(width: Int, height: Int, sampleAspectRatio: Double = 1, rotation: Int = 0) {
        self.width = width
        self.height = height
        self.sampleAspectRatio = sampleAspectRatio
        self.rotation = rotation
    }

    /// The size to show it at, in square pixels, turned as it must be.
    public var displaySize: (width: Int, height: Int) {
        let width = Int((Double(self.width) * sampleAspectRatio).rounded())
        return rotation == 90 || rotation == 270 ? (height, width) : (width, height)
    }
}

extension VideoFormat {
    /// What `stream` declares: the container's pixel shape where it gives one, else the codec's.
    init(stream: UnsafeMutablePointer<AVStream>) {
        let parameters = stream.pointee.codecpar.pointee
        let aspect = stream.pointee.sample_aspect_ratio.num > 0 ? stream.pointee.sample_aspect_ratio : parameters.sample_aspect_ratio
        self.init(width: Int(parameters.width), height: Int(parameters.height),
                  sampleAspectRatio: aspect.num > 0 && aspect.den > 0 ? aspect.seconds : 1,
                  rotation: MediaProbe.rotation(of: stream))
    }
}

/// A picture output that asks for a frame at each refresh of its display.
public protocol VideoOutput: AnyObject, Sendable {
    /// The pixel formats it takes; nil when it takes any. Others are converted by the decoder.
    var acceptedPixelFormats: [AVPixelFormat]? { get }
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
