import CASS

/// The subtitles over a picture as one image the picture's size: RGBA with straight alpha (what
/// SDL's blended textures take), transparent where nothing is drawn. Only the part that changed
/// is redrawn and needs uploading (`changedRegion`), and only the strips drawn in need putting
/// over the picture (`drawnStrips`).
public final class SubtitleOverlay {
    public private(set) var size: PictureSize
    /// `size.width * 4` bytes a row.
    public private(set) var pixels: [UInt8]
    /// What the last change touched (what was drawn before, and what is drawn now); nil before
    /// any change.
    package private(set) var changedRegion: LayoutRect?
    /// Where something is drawn now: the box around all that needs putting over the picture.
    package private(set) var drawnRegion: LayoutRect?
    /// The same, strip by strip.
    package private(set) var drawnStrips: StripSpans
    /// The strips drawn before the last change, kept to be cleared at the next.
    private var previousStrips: StripSpans

    public init(size: PictureSize) {
        self.size = size
        pixels = [UInt8](repeating: 0, count: max(0, size.width * size.height * 4))
        drawnStrips = StripSpans(rows: size.height)
        previousStrips = StripSpans(rows: size.height)
    }

    /// Makes it `size`, cleared (a new window size); nothing is done when it is that size already.
    public func resize(to size: PictureSize) {
        guard size != self.size else { return }
        self.size = size
        pixels = [UInt8](repeating: 0, count: max(0, size.width * size.height * 4))
        changedRegion = LayoutRect(x: 0, y: 0, width: size.width, height: size.height)
        drawnRegion = nil
        drawnStrips = StripSpans(rows: size.height)
        previousStrips = StripSpans(rows: size.height)
    }

    /// What libass drew (the primary layer's images, then the secondary's) and the bitmap cues'
    /// pictures (their canvas, when they name none, the video as coded: `storage`), in place of
    /// what was there.
    func replace(with images: UnsafeMutablePointer<ASS_Image>?, _ secondary: UnsafeMutablePointer<ASS_Image>? = nil,
                 bitmaps: [SubtitleBitmaps] = [], storage: PictureSize? = nil) {
        let before = drawnRegion
        // The two sets of strips trade places: neither is made anew.
        swap(&drawnStrips, &previousStrips)
        clear(previousStrips)
        drawnStrips.clear()
        SubtitleBlending.add(images, within: size, to: &drawnStrips)
        SubtitleBlending.add(secondary, within: size, to: &drawnStrips)
        for bitmap in bitmaps {
            if let rect = SubtitleBlending.bounds(of: bitmap, canvas: bitmap.canvas ?? storage ?? size, within: size) { drawnStrips.add(rect) }
        }
        drawnRegion = drawnStrips.bounds
        pixels.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            SubtitleBlending.composite(images, into: base, size: size)
            SubtitleBlending.composite(secondary, into: base, size: size)
            for bitmap in bitmaps { SubtitleBlending.composite(bitmap, canvas: bitmap.canvas ?? storage ?? size, into: base, size: size) }
        }
        changedRegion = LayoutRect.union(before, drawnRegion) ?? LayoutRect(x: 0, y: 0, width: 0, height: 0)
    }

    private func clear(_ strips: StripSpans) {
        let width = size.width
        pixels.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            for index in 0..<strips.count {
                guard let region = strips.rect(index) else { continue }
                for y in region.y..<(region.y + region.height) {
                    (base + (y * width + region.x) * 4).update(repeating: 0, count: region.width * 4)
                }
            }
        }
    }
}

/// libass's images put onto pixels. Each image is a coverage mask (0–255 a pixel) and one
/// colour, 0xRRGGBBAA with AA its transparency; the images come in drawing order.
enum SubtitleBlending {
    /// Adds what each image covers, clipped to `size`, to `strips`.
    static func add(_ images: UnsafeMutablePointer<ASS_Image>?, within size: PictureSize, to strips: inout StripSpans) {
        var image = images
        while let current = image?.pointee {
            image = current.next
            guard let clipped = clip(current, to: size) else { continue }
            strips.add(LayoutRect(x: clipped.x, y: clipped.y, width: clipped.width, height: clipped.height))
        }
    }

    /// Onto straight-alpha RGBA, cleared where nothing was drawn: each image over what is there.
    static func composite(_ images: UnsafeMutablePointer<ASS_Image>?, into pixels: UnsafeMutablePointer<UInt8>, size: PictureSize) {
        var image = images
        while let current = image?.pointee {
            image = current.next
            guard let clipped = clip(current, to: size), let mask = current.bitmap else { continue }
            let (red, green, blue, opacity) = colour(current.color)
            let (r8, g8, b8) = (UInt8(red), UInt8(green), UInt8(blue))
            for row in 0..<clipped.height {
                let source = mask + (clipped.maskY + row) * Int(current.stride) + clipped.maskX
                let line = pixels + ((clipped.y + row) * size.width + clipped.x) * 4
                var column = 0
                while column < clipped.width {
                    // Most of a glyph's box has no coverage: passed over eight at a time.
                    if column &+ 8 <= clipped.width, UnsafeRawPointer(source + column).loadUnaligned(as: UInt64.self) == 0 {
                        column &+= 8
                        continue
                    }
                    let coverage = Int(source[column])
                    let target = line + column &* 4
                    column &+= 1
                    guard coverage != 0 else { continue }
                    let k = opacity == 255 ? coverage : divide255(coverage &* opacity)
                    let a = Int(target[3])
                    if a == 0 || k == 255 {
                        target[0] = r8
                        target[1] = g8
                        target[2] = b8
                        target[3] = UInt8(truncatingIfNeeded: k)
                    } else if k > 0 {
                        // Straight alpha: the colours weighed by how much of each shows.
                        let below = divide255(a &* (255 &- k))
                        let out = k &+ below
                        target[0] = UInt8(truncatingIfNeeded: divide(red &* k &+ Int(target[0]) &* below, by: out))
                        target[1] = UInt8(truncatingIfNeeded: divide(green &* k &+ Int(target[1]) &* below, by: out))
                        target[2] = UInt8(truncatingIfNeeded: divide(blue &* k &+ Int(target[2]) &* below, by: out))
                        target[3] = UInt8(truncatingIfNeeded: out)
                    }
                }
            }
        }
    }

    /// `x / 255`, rounded down, for x up to 65,535, without a division.
    @inline(__always) static func divide255(_ x: Int) -> Int { (x &* 0x8081) &>> 23 }

    /// `x / divisor`, rounded down, for x up to 255 × divisor and divisor 1...255, by a
    /// multiplication: ⌈2²⁴ / divisor⌉ is exact over that range (x × its error stays under 2²⁴).
    @inline(__always) static func divide(_ x: Int, by divisor: Int) -> Int {
        (x &* reciprocals[divisor]) &>> 24
    }

    private static let reciprocals: [Int] = (0...255).map { $0 == 0 ? 0 : ((1 << 24) + $0 - 1) / $0 }

    /// Onto an opaque picture of packed RGB (3 bytes a pixel) or RGBA (4, its alpha left).
    static func blend(_ images: UnsafeMutablePointer<ASS_Image>?, onto pixels: UnsafeMutablePointer<UInt8>, lineSize: Int,
                      size: PictureSize, bytesPerPixel: Int) {
        var image = images
        while let current = image?.pointee {
            image = current.next
            guard let clipped = clip(current, to: size), let mask = current.bitmap else { continue }
            let (red, green, blue, opacity) = colour(current.color)
            for row in 0..<clipped.height {
                let source = mask + (clipped.maskY + row) * Int(current.stride) + clipped.maskX
                var target = pixels + (clipped.y + row) * lineSize + clipped.x * bytesPerPixel
                for column in 0..<clipped.width {
                    let k = Int(source[column]) * opacity / 255
                    if k > 0 {
                        target[0] = UInt8((red * k + Int(target[0]) * (255 - k) + 127) / 255)
                        target[1] = UInt8((green * k + Int(target[1]) * (255 - k) + 127) / 255)
                        target[2] = UInt8((blue * k + Int(target[2]) * (255 - k) + 127) / 255)
                    }
                    target += bytesPerPixel
                }
            }
        }
    }

    /// An image's part inside the picture: where it lands, and where that part starts in its mask.
    private static func clip(_ image: ASS_Image, to size: PictureSize)
        -> (x: Int, y: Int, width: Int, height: Int, maskX: Int, maskY: Int)? {
        let left = max(0, Int(image.dst_x)), top = max(0, Int(image.dst_y))
        let right = min(size.width, Int(image.dst_x) + Int(image.w)), bottom = min(size.height, Int(image.dst_y) + Int(image.h))
        guard right > left, bottom > top else { return nil }
        return (left, top, right - left, bottom - top, left - Int(image.dst_x), top - Int(image.dst_y))
    }

    /// Red, green, blue and opacity (255 - libass's transparency).
    private static func colour(_ color: UInt32) -> (Int, Int, Int, Int) {
        (Int(color >> 24), Int((color >> 16) & 0xFF), Int((color >> 8) & 0xFF), 255 - Int(color & 0xFF))
    }
}
