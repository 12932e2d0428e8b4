import CASS

/// The subtitles over a picture as one image the picture's size: RGBA with straight alpha (what
/// SDL's blended textures take), transparent where nothing is drawn. Only the part that changed
/// is redrawn and needs uploading (`changedRegion`).
public final class SubtitleOverlay {
    public private(set) var size: PictureSize
    /// `size.width * 4` bytes a row.
    public private(set) var pixels: [UInt8]
    /// What the last change touched (what was drawn before, and what is drawn now); nil before
    /// any change.
    package private(set) var changedRegion: LayoutRect?
    /// Where something is drawn now: all that needs putting over the picture.
    package private(set) var drawnRegion: LayoutRect?

    public init(size: PictureSize) {
        self.size = size
        pixels = [UInt8](repeating: 0, count: max(0, size.width * size.height * 4))
    }

    /// Makes it `size`, cleared (a new window size); nothing is done when it is that size already.
    public func resize(to size: PictureSize) {
        guard size != self.size else { return }
        self.size = size
        pixels = [UInt8](repeating: 0, count: max(0, size.width * size.height * 4))
        changedRegion = LayoutRect(x: 0, y: 0, width: size.width, height: size.height)
        drawnRegion = nil
    }

    /// What libass drew (the primary layer's images, then the secondary's) and the bitmap cues'
    /// pictures (their canvas, when they name none, the video as coded: `storage`), in place of
    /// what was there.
    func replace(with images: UnsafeMutablePointer<ASS_Image>?, _ secondary: UnsafeMutablePointer<ASS_Image>? = nil,
                 bitmaps: [SubtitleBitmaps] = [], storage: PictureSize? = nil) {
        let before = drawnRegion
        if let before { clear(before) }
        let drawn = LayoutRect.union(SubtitleBlending.bounds(of: images, within: size), SubtitleBlending.bounds(of: secondary, within: size))
        drawnRegion = bitmaps.reduce(drawn) { region, bitmaps in
            LayoutRect.union(region, SubtitleBlending.bounds(of: bitmaps, canvas: bitmaps.canvas ?? storage ?? size, within: size))
        }
        pixels.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            SubtitleBlending.composite(images, into: base, size: size)
            SubtitleBlending.composite(secondary, into: base, size: size)
            for bitmap in bitmaps { SubtitleBlending.composite(bitmap, canvas: bitmap.canvas ?? storage ?? size, into: base, size: size) }
        }
        changedRegion = LayoutRect.union(before, drawnRegion) ?? LayoutRect(x: 0, y: 0, width: 0, height: 0)
    }

    private func clear(_ region: LayoutRect) {
        let width = size.width
        pixels.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            for y in region.y..<(region.y + region.height) {
                (base + (y * width + region.x) * 4).update(repeating: 0, count: region.width * 4)
            }
        }
    }
}

/// libass's images put onto pixels. Each image is a coverage mask (0–255 a pixel) and one
/// colour, 0xRRGGBBAA with AA its transparency; the images come in drawing order.
enum SubtitleBlending {
    /// The region the images cover, clipped to `size`; nil when they cover nothing.
    static func bounds(of images: UnsafeMutablePointer<ASS_Image>?, within size: PictureSize) -> LayoutRect? {
        var region: LayoutRect?
        var image = images
        while let current = image?.pointee {
            image = current.next
            guard let clipped = clip(current, to: size) else { continue }
            region = LayoutRect.union(region, LayoutRect(x: clipped.x, y: clipped.y, width: clipped.width, height: clipped.height))
        }
        return region
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
                var source = mask + (clipped.maskY + row) * Int(current.stride) + clipped.maskX
                var target = pixels + ((clipped.y + row) * size.width + clipped.x) * 4
                for _ in 0..<clipped.width {
                    let coverage = Int(source.pointee)
                    if coverage != 0 {
                        let k = opacity == 255 ? coverage : coverage &* opacity / 255
                        let a = Int(target[3])
                        if a == 0 || k == 255 {
                            target[0] = r8
                            target[1] = g8
                            target[2] = b8
                            target[3] = UInt8(truncatingIfNeeded: k)
                        } else if k > 0 {
                            // Straight alpha: the colours weighed by how much of each shows.
                            let below = a &* (255 &- k) / 255
                            let out = k &+ below
                            target[0] = UInt8(truncatingIfNeeded: (red &* k &+ Int(target[0]) &* below) / out)
                            target[1] = UInt8(truncatingIfNeeded: (green &* k &+ Int(target[1]) &* below) / out)
                            target[2] = UInt8(truncatingIfNeeded: (blue &* k &+ Int(target[2]) &* below) / out)
                            target[3] = UInt8(truncatingIfNeeded: out)
                        }
                    }
                    source += 1
                    target += 4
                }
            }
        }
    }

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
