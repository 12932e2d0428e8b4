/// What a video output needs to know to show a stream: its size, its pixels' shape and how it
/// must be turned.
public struct VideoFormat: Sendable, Equatable {
    /// Coded width in pixels, before the aspect ratio and rotation are applied.
    public var width: Int
    /// Coded height in pixels.
    public var height: Int
    /// Width / height of one pixel (1 for square pixels).
    public var sampleAspectRatio: Double
    /// Clockwise degrees the picture must be turned to display upright: 0, 90, 180 or 270.
    public var rotation: Int

    /// A format, as the fields say: square pixels, upright by default.
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

/// A picture's width and height in pixels.
public struct PictureSize: Equatable, Sendable {
    /// Pixels across.
    public var width: Int
    /// Pixels down.
    public var height: Int

    /// A size, as the fields say.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}
