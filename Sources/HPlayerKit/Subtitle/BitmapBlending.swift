/// Bitmap subtitles put onto pixels: each rectangle stretched from its canvas to the picture,
/// sampled bilinearly on premultiplied colour (so a transparent neighbour does not darken an
/// edge), exact where the two sizes are equal.
extension SubtitleBlending {
    /// The region the rectangles cover on a picture of `size`; nil when they cover nothing.
    static func bounds(of bitmaps: SubtitleBitmaps, canvas: PictureSize, within size: PictureSize) -> LayoutRect? {
        bitmaps.rectangles.reduce(nil) { region, rectangle in
            LayoutRect.union(region, placement(of: rectangle, canvas: canvas, within: size).map { $0.rect })
        }
    }

    /// Onto straight-alpha RGBA: each rectangle over what is there.
    static func composite(_ bitmaps: SubtitleBitmaps, canvas: PictureSize, into pixels: UnsafeMutablePointer<UInt8>, size: PictureSize) {
        for rectangle in bitmaps.rectangles {
            forEachPixel(of: rectangle, canvas: canvas, within: size, lineSize: size.width * 4, bytesPerPixel: 4, in: pixels) { target, red, green, blue, k in
                let a = Int(target[3])
                let below = a * (255 - k) / 255
                let out = k + below
                // The sample's colour is premultiplied by k; the one below by its alpha.
                target[0] = UInt8((red * 255 + Int(target[0]) * below) / out)
                target[1] = UInt8((green * 255 + Int(target[1]) * below) / out)
                target[2] = UInt8((blue * 255 + Int(target[2]) * below) / out)
                target[3] = UInt8(out)
            }
        }
    }

    /// Onto an opaque picture of packed RGB (3 bytes a pixel) or RGBA (4, its alpha left).
    static func blend(_ bitmaps: SubtitleBitmaps, canvas: PictureSize, onto pixels: UnsafeMutablePointer<UInt8>, lineSize: Int,
                      size: PictureSize, bytesPerPixel: Int) {
        for rectangle in bitmaps.rectangles {
            forEachPixel(of: rectangle, canvas: canvas, within: size, lineSize: lineSize, bytesPerPixel: bytesPerPixel, in: pixels) { target, red, green, blue, k in
                target[0] = UInt8((red * 255 + Int(target[0]) * (255 - k) + 127) / 255)
                target[1] = UInt8((green * 255 + Int(target[1]) * (255 - k) + 127) / 255)
                target[2] = UInt8((blue * 255 + Int(target[2]) * (255 - k) + 127) / 255)
            }
        }
    }

    /// Where a rectangle lands on the picture, clipped to it, and the scale from canvas to picture.
    private static func placement(of rectangle: SubtitleBitmaps.Rectangle, canvas: PictureSize, within size: PictureSize)
        -> (rect: LayoutRect, scaleX: Double, scaleY: Double)? {
        guard canvas.width > 0, canvas.height > 0 else { return nil }
        let scaleX = Double(size.width) / Double(canvas.width), scaleY = Double(size.height) / Double(canvas.height)
        let left = max(0, Int((Double(rectangle.x) * scaleX).rounded(.down)))
        let top = max(0, Int((Double(rectangle.y) * scaleY).rounded(.down)))
        let right = min(size.width, Int((Double(rectangle.x + rectangle.width) * scaleX).rounded(.up)))
        let bottom = min(size.height, Int((Double(rectangle.y + rectangle.height) * scaleY).rounded(.up)))
        guard right > left, bottom > top else { return nil }
        return (LayoutRect(x: left, y: top, width: right - left, height: bottom - top), scaleX, scaleY)
    }

    /// Calls `put` for each picture pixel the rectangle covers with some opacity: the pixel's
    /// bytes, the sample's colour premultiplied by its opacity, and that opacity (1–255).
    private static func forEachPixel(of rectangle: SubtitleBitmaps.Rectangle, canvas: PictureSize, within size: PictureSize,
                                     lineSize: Int, bytesPerPixel: Int, in pixels: UnsafeMutablePointer<UInt8>,
                                     _ put: (UnsafeMutablePointer<UInt8>, Int, Int, Int, Int) -> Void) {
        guard let (rect, scaleX, scaleY) = placement(of: rectangle, canvas: canvas, within: size) else { return }
        let (width, height) = (rectangle.width, rectangle.height)
        rectangle.pixels.withUnsafeBufferPointer { source in
            // The source's premultiplied channel c of pixel (x, y), 0 outside it.
            func sample(_ x: Int, _ y: Int, _ c: Int) -> Int {
                guard x >= 0, y >= 0, x < width, y < height else { return 0 }
                let at = (y * width + x) * 4
                return c == 3 ? Int(source[at + 3]) : Int(source[at + c]) * Int(source[at + 3]) / 255
            }
            for row in rect.y..<(rect.y + rect.height) {
                let sourceY = (Double(row) + 0.5) / scaleY - 0.5 - Double(rectangle.y)
                let y0 = Int(sourceY.rounded(.down)), fy = sourceY - Double(y0)
                var target = pixels + row * lineSize + rect.x * bytesPerPixel
                for column in rect.x..<(rect.x + rect.width) {
                    let sourceX = (Double(column) + 0.5) / scaleX - 0.5 - Double(rectangle.x)
                    let x0 = Int(sourceX.rounded(.down)), fx = sourceX - Double(x0)
                    var channels = (0, 0, 0, 0)
                    if fx == 0, fy == 0 {
                        channels = (sample(x0, y0, 0), sample(x0, y0, 1), sample(x0, y0, 2), sample(x0, y0, 3))
                    } else {
                        func mix(_ c: Int) -> Int {
                            let top = Double(sample(x0, y0, c)) * (1 - fx) + Double(sample(x0 + 1, y0, c)) * fx
                            let bottom = Double(sample(x0, y0 + 1, c)) * (1 - fx) + Double(sample(x0 + 1, y0 + 1, c)) * fx
                            return Int((top * (1 - fy) + bottom * fy).rounded())
                        }
                        channels = (mix(0), mix(1), mix(2), mix(3))
                    }
                    let k = channels.3
                    if k > 0 { put(target, min(channels.0, k), min(channels.1, k), min(channels.2, k), k) }
                    target += bytesPerPixel
                }
            }
        }
    }
}
