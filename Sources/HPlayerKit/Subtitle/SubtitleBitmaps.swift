import CFFmpeg

/// The picture of a bitmap subtitle (PGS, DVB, DVD, XSUB): rectangles of colour placed on the
/// subtitle's canvas, which is stretched over the video as it is shown.
public struct SubtitleBitmaps: Sendable, Equatable {
    /// One rectangle: its place on the canvas and its pixels, RGBA with straight alpha (the
    /// palette applied), `width * 4` bytes a row.
    public struct Rectangle: Sendable, Equatable {
        public var x: Int
        public var y: Int
        public var width: Int
        public var height: Int
        public var pixels: [UInt8]

        package init(x: Int, y: Int, width: Int, height: Int, pixels: [UInt8]) {
            (self.x, self.y, self.width, self.height, self.pixels) = (x, y, width, height, pixels)
        }
    }

    public var rectangles: [Rectangle]
    /// The size the positions count in, as the stream gives it (a PGS presentation's, a DVD
    /// .idx's); nil when it gives none: the video's size as coded.
    public var canvas: PictureSize?

    package init(rectangles: [Rectangle], canvas: PictureSize?) {
        self.rectangles = rectangles
        self.canvas = canvas
    }

    /// The bitmap rectangles of a decoded subtitle; nil when it has none. A rectangle past the
    /// canvas is cut to it, a palette index past the palette is transparent.
    static func make(from subtitle: AVSubtitle, canvas: PictureSize?) -> SubtitleBitmaps? {
        var rectangles: [Rectangle] = []
        for index in 0..<Int(subtitle.num_rects) {
            guard let rect = subtitle.rects[index]?.pointee, rect.type == SUBTITLE_BITMAP,
                  let made = rectangle(rect, canvas: canvas) else { continue }
            rectangles.append(made)
        }
        return rectangles.isEmpty ? nil : SubtitleBitmaps(rectangles: rectangles, canvas: canvas)
    }

    /// Rectangles bigger than this are refused as damaged: a bitmap subtitle covers at most a
    /// 4K picture.
    private static let largestSide = 8192

    private static func rectangle(_ rect: AVSubtitleRect, canvas: PictureSize?) -> Rectangle? {
        guard let indices = rect.data.0, let palette = rect.data.1 else { return nil }
        let colours = Int(max(0, min(rect.nb_colors, 256)))
        // libavcodec's palette: a 32-bit 0xAARRGGBB a colour, in the machine's order.
        let table = palette.withMemoryRebound(to: UInt32.self, capacity: colours) { Array(UnsafeBufferPointer(start: $0, count: colours)) }
        return rectangle(x: Int(rect.x), y: Int(rect.y), width: Int(rect.w), height: Int(rect.h), lineSize: Int(rect.linesize.0),
                         indices: indices, palette: table, canvas: canvas)
    }

    /// A rectangle of `width * height` palette indices, `lineSize` bytes a row, at (x, y): cut
    /// to the canvas, its indices turned to colours (0xAARRGGBB); nil when nothing is left.
    package static func rectangle(x: Int, y: Int, width: Int, height: Int, lineSize: Int, indices: UnsafePointer<UInt8>,
                                  palette: [UInt32], canvas: PictureSize?) -> Rectangle? {
        var (x, y, width, height) = (x, y, width, height)
        guard width > 0, height > 0, width <= largestSide, height <= largestSide, lineSize >= width else { return nil }
        var (left, top) = (0, 0)
        if x < 0 { (left, width, x) = (-x, width + x, 0) }
        if y < 0 { (top, height, y) = (-y, height + y, 0) }
        if let canvas {
            width = min(width, canvas.width - x)
            height = min(height, canvas.height - y)
        }
        guard width > 0, height > 0 else { return nil }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        pixels.withUnsafeMutableBufferPointer { out in
            for row in 0..<height {
                let line = indices + (top + row) * lineSize + left
                for column in 0..<width {
                    let index = Int(line[column])
                    guard index < palette.count else { continue }
                    let colour = palette[index]
                    let at = (row * width + column) * 4
                    out[at] = UInt8(truncatingIfNeeded: colour >> 16)
                    out[at + 1] = UInt8(truncatingIfNeeded: colour >> 8)
                    out[at + 2] = UInt8(truncatingIfNeeded: colour)
                    out[at + 3] = UInt8(truncatingIfNeeded: colour >> 24)
                }
            }
        }
        return Rectangle(x: x, y: y, width: width, height: height, pixels: pixels)
    }
}
