import CASS
import Testing
@testable import HPlayerKit

@Suite struct ASSScriptTests {
    @Test("A cue that came as plain text becomes an event in the default style, its markup characters kept as text",
          arguments: [
            ("Hello", #"0,0,Default,,0,0,0,,Hello"#),
            ("Two\nlines", #"0,0,Default,,0,0,0,,Two\Nlines"#),
            ("{not a tag}", #"0,0,Default,,0,0,0,,\{not a tag\}"#),
            (#"back\slash"#, #"0,0,Default,,0,0,0,,back\\slash"#),
            ("commas, stay, as they are", "0,0,Default,,0,0,0,,commas, stay, as they are"),
          ])
    func eventFromPlainText(text: String, expected: String) {
        #expect(ASSScript.event(plainText: text) == expected)
    }

    @Test("A converted event's ReadOrder is made 0, so the same cue read again is the same",
          arguments: [("17,0,Default,,0,0,0,,Hi", "0,0,Default,,0,0,0,,Hi"), ("0,1,Top,,0,0,0,,x", "0,1,Top,,0,0,0,,x"), ("junk", "junk")])
    func withoutReadOrder(event: String, expected: String) {
        #expect(ASSScript.withoutReadOrder(event) == expected)
    }

    @Test("A font attachment is told by its MIME type, else by its file name",
          arguments: [("application/x-truetype-font", "a.bin", true), ("font/otf", "a", true), ("application/vnd.ms-opentype", "a", true),
                      ("application/octet-stream", "Title.TTF", true), ("image/png", "cover.png", false), ("", "notes.txt", false)])
    func fontAttachment(mimeType: String, fileName: String, isFont: Bool) {
        #expect(FontAttachments.isFont(mimeType: mimeType, fileName: fileName) == isFont)
    }
}

@Suite struct SubtitleBlendingTests {
    /// libass's image of `width`x`height` coverage `mask` at (x, y), colour 0xRRGGBBAA.
    private func withImages(_ specs: [(x: Int32, y: Int32, width: Int32, height: Int32, mask: [UInt8], color: UInt32)],
                            _ body: (UnsafeMutablePointer<ASS_Image>?) -> Void) {
        var masks = specs.map(\.mask)
        let images = UnsafeMutablePointer<ASS_Image>.allocate(capacity: max(1, specs.count))
        defer { images.deallocate() }
        masks.withUnsafeMutableBufferPointer { buffers in
            for index in specs.indices {
                let spec = specs[index]
                buffers[index].withUnsafeMutableBufferPointer { mask in
                    images[index] = ASS_Image(w: spec.width, h: spec.height, stride: spec.width, bitmap: mask.baseAddress, color: spec.color,
                                              dst_x: spec.x, dst_y: spec.y, next: index + 1 < specs.count ? images + index + 1 : nil,
                                              type: IMAGE_TYPE_CHARACTER)
                }
            }
            body(specs.isEmpty ? nil : images)
        }
    }

    @Test("Onto a picture: each image's colour weighed by its coverage and opacity, in drawing order; outside the picture clipped")
    func blendOntoRGB() {
        var pixels = [UInt8](repeating: 100, count: 3 * 3 * 3)  // 3x3 grey
        // Opaque red, full coverage at (0,0) and half at (1,0); then half-transparent blue over (1,0), reaching off the right edge.
        withImages([(0, 0, 2, 1, [255, 128], 0xFF00_0000), (1, 0, 3, 1, [255, 255, 255], 0x0000_FF80)]) { images in
            pixels.withUnsafeMutableBufferPointer { buffer in
                SubtitleBlending.blend(images, onto: buffer.baseAddress!, lineSize: 9, size: PictureSize(width: 3, height: 3), bytesPerPixel: 3)
            }
        }
        #expect(Array(pixels[0..<3]) == [255, 0, 0])
        // Red at 128/255 over grey: (255*128 + 100*127)/255 = 178; then blue at 127/255.
        let red = (255 * 128 + 100 * 127 + 127) / 255, grey = (100 * 127 + 127) / 255
        let opacity = 255 - 0x80
        #expect(Array(pixels[3..<6]) == [UInt8((red * (255 - opacity) + 127) / 255), UInt8((grey * (255 - opacity) + 127) / 255),
                                         UInt8((255 * opacity + grey * (255 - opacity) + 127) / 255)])
        #expect(Array(pixels[9...]) == [UInt8](repeating: 100, count: 18), "the rows below are untouched")
    }

    @Test("Into an overlay: straight alpha, a pixel's colour the mix of what covers it; the region changed includes what was cleared")
    func overlay() {
        let overlay = SubtitleOverlay(size: PictureSize(width: 4, height: 2))
        withImages([(0, 0, 1, 1, [255], 0xFFFF_FF00), (0, 0, 1, 1, [128], 0x0000_0000)]) { overlay.replace(with: $0) }
        // White, then black at 128/255 over it: alpha stays full, the colour is their mix.
        #expect(Array(overlay.pixels[0..<4]) == [127, 127, 127, 255])
        #expect(overlay.changedRegion == LayoutRect(x: 0, y: 0, width: 1, height: 1))
        #expect(overlay.drawnRegion == LayoutRect(x: 0, y: 0, width: 1, height: 1))
        withImages([(2, 1, 2, 1, [64, 0], 0x00FF_0000)]) { overlay.replace(with: $0) }
        #expect(Array(overlay.pixels[0..<4]) == [0, 0, 0, 0], "what was drawn before is cleared")
        #expect(Array(overlay.pixels[(4 + 2) * 4..<(4 + 2) * 4 + 4]) == [0, 255, 0, 64])
        #expect(overlay.changedRegion == LayoutRect(x: 0, y: 0, width: 4, height: 2))
        withImages([]) { overlay.replace(with: $0) }
        #expect(overlay.drawnRegion == nil && overlay.pixels.allSatisfy { $0 == 0 })
    }
}

@Suite struct SubtitleDrawerTests {
    private let script = SubtitleScript(header: ASSScript.textHeader)

    @Test("What is drawn ahead is taken as it is; a change of time that changes nothing is the same drawing; nothing clears it")
    func drawnAheadAndTaken() throws {
        let drawer = try #require(SubtitleDrawer())
        defer { drawer.close() }
        let size = PictureSize(width: 320, height: 180)
        let shown = ShownSubtitle(cues: [SubtitleCue(start: 0, end: 10, text: "Hello", event: ASSScript.event(plainText: "Hello"))], script: script)
        let request = { (pts: Double) in SubtitleDrawer.Request(shown: shown, pts: pts, size: size, storage: size) }
        drawer.prepare(request(1))
        let first = try #require(drawer.draw(request(1)))
        let drawn = try #require(first.overlay.drawnRegion)
        #expect(drawn.y > 90, "a text subtitle goes at the bottom: \(drawn)")
        let same = try #require(drawer.draw(request(2)))
        #expect(same.version == first.version, "a still subtitle is not drawn again")
        let none = try #require(drawer.draw(SubtitleDrawer.Request(shown: nil, pts: 0, size: size, storage: size)))
        #expect(none.version != first.version && none.overlay.drawnRegion == nil)
    }
}

@Suite struct BitmapSubtitleTests {
    /// A rectangle of `indices` (width 2) through `SubtitleBitmaps.rectangle`, the palette opaque
    /// red (1) and half-transparent blue (2); index 0 is transparent.
    private func rectangle(x: Int, y: Int, _ indices: [UInt8], canvas: PictureSize?) -> SubtitleBitmaps.Rectangle? {
        indices.withUnsafeBufferPointer {
            SubtitleBitmaps.rectangle(x: x, y: y, width: 2, height: indices.count / 2, lineSize: 2, indices: $0.baseAddress!,
                                      palette: [0x0000_0000, 0xFFFF_0000, 0x8000_00FF], canvas: canvas)
        }
    }

    @Test("A bitmap's palette is applied as RGBA; an index past the palette is transparent")
    func paletteApplied() throws {
        let made = try #require(rectangle(x: 1, y: 1, [1, 2, 0, 7], canvas: nil))
        #expect(made.pixels == [255, 0, 0, 255, 0, 0, 255, 128, 0, 0, 0, 0, 0, 0, 0, 0])
    }

    @Test("A bitmap past the canvas is cut to it; one wholly outside is nothing", arguments: [
        (3, 0, PictureSize(width: 4, height: 4), 1, 2),
        (-1, 3, PictureSize(width: 4, height: 4), 1, 1),
        (4, 0, PictureSize(width: 4, height: 4), 0, 0),
        (0, 0, nil, 2, 2),
    ])
    func cutToCanvas(x: Int, y: Int, canvas: PictureSize?, width: Int, height: Int) {
        let made = rectangle(x: x, y: y, [1, 1, 1, 1], canvas: canvas)
        #expect(made.map { ($0.width, $0.height) } ?? (0, 0) == (width, height))
        if let made { #expect(made.x >= 0 && made.y >= 0) }
    }

    @Test("A bitmap on a canvas of the picture's size lands pixel for pixel; on one half its size, on twice the pixels",
          arguments: [(PictureSize(width: 8, height: 4), LayoutRect(x: 1, y: 0, width: 2, height: 1), true),
                      (PictureSize(width: 4, height: 2), LayoutRect(x: 2, y: 0, width: 4, height: 2), false)])
    func scaledWithThePicture(canvas: PictureSize, covered: LayoutRect, exact: Bool) throws {
        let bitmaps = SubtitleBitmaps(rectangles: [try #require(rectangle(x: 1, y: 0, [1, 1], canvas: nil))], canvas: nil)
        let size = PictureSize(width: 8, height: 4)
        var pixels = [UInt8](repeating: 0, count: 8 * 4 * 3)
        pixels.withUnsafeMutableBufferPointer {
            SubtitleBlending.blend(bitmaps, canvas: canvas, onto: $0.baseAddress!, lineSize: 24, size: size, bytesPerPixel: 3)
        }
        for y in 0..<4 {
            for x in 0..<8 {
                let inside = x >= covered.x && x < covered.x + covered.width && y >= covered.y && y < covered.y + covered.height
                let red = pixels[(y * 8 + x) * 3]
                #expect(inside ? (exact ? red == 255 : red > 0) : red == 0, "(\(x), \(y)): \(red)")
                #expect(pixels[(y * 8 + x) * 3 + 1] == 0)
            }
        }
        #expect(SubtitleBlending.bounds(of: bitmaps, canvas: canvas, within: size) == covered)
    }

    @Test("A half-transparent bitmap pixel over the overlay keeps its colour at its alpha, and over an opaque one mixes")
    func halfTransparentComposited() throws {
        let bitmaps = SubtitleBitmaps(rectangles: [try #require(rectangle(x: 0, y: 0, [2, 2], canvas: nil))], canvas: nil)
        let overlay = SubtitleOverlay(size: PictureSize(width: 2, height: 1))
        overlay.replace(with: nil, bitmaps: [bitmaps])
        #expect(Array(overlay.pixels[0..<4]) == [0, 0, 255, 128])
        #expect(overlay.drawnRegion == LayoutRect(x: 0, y: 0, width: 2, height: 1))
        var picture: [UInt8] = [255, 255, 255, 255, 255, 255]
        picture.withUnsafeMutableBufferPointer {
            SubtitleBlending.blend(bitmaps, canvas: PictureSize(width: 2, height: 1), onto: $0.baseAddress!, lineSize: 6,
                                   size: PictureSize(width: 2, height: 1), bytesPerPixel: 3)
        }
        #expect(Array(picture[0..<3]) == [127, 127, 255])
    }

    @Test("A bitmap clear ends the cue showing, whose end was open or later (a DVB page's time-out); a later cue is not touched")
    func clearEndsTheOpenCue() {
        let bitmaps = SubtitleBitmaps(rectangles: [SubtitleBitmaps.Rectangle(x: 0, y: 0, width: 1, height: 1, pixels: [1, 2, 3, 4])], canvas: nil)
        let track = SubtitleTrack(description: SubtitleTrackDescription(streamIndex: 0, path: nil, codec: "hdmv_pgs_subtitle",
                                                                        language: nil, title: nil, isDefault: false))
        track.take(.cue(SubtitleCue(start: 1, end: .infinity, text: "", bitmaps: bitmaps)))
        #expect(track.shown(at: 5)?.cues.first?.bitmaps == bitmaps)
        track.take(.clear(at: 4))
        #expect(track.shown(at: 3.99) != nil)
        #expect(track.shown(at: 4) == nil)
        // Read again after a seek back: the same cue once, still ended.
        track.take(.cue(SubtitleCue(start: 1, end: .infinity, text: "", bitmaps: bitmaps)))
        track.take(.clear(at: 4))
        #expect(track.cues.map(\.end) == [4])
        track.take(.cue(SubtitleCue(start: 6, end: 30, text: "", bitmaps: bitmaps)))
        track.take(.clear(at: 8))
        track.take(.clear(at: 5))
        #expect(track.cues.map(\.end) == [4, 8])
    }
}

@Suite struct ShownCueTests {
    @Test("A cue shows something when it has text, a picture or an ASS drawing; a caption screen cleared (an event of no text) shows nothing",
          arguments: [
            (SubtitleCue(start: 0, end: 1, text: "Hi"), true),
            (SubtitleCue(start: 0, end: 1, text: "", event: #"0,0,Default,,0,0,0,,{\p1}m 0 0 l 10 0 10 10"#), true),
            (SubtitleCue(start: 0, end: 1, text: "", event: "0,0,Default,,0,0,0,,"), false),
            (SubtitleCue(start: 0, end: 1, text: "", bitmaps: SubtitleBitmaps(rectangles: [], canvas: nil)), true),
          ])
    func showsAnything(cue: SubtitleCue, shows: Bool) {
        #expect(cue.showsAnything == shows)
    }
}

@Suite struct StripSpansTests {
    @Test("Each strip of 16 rows holds the box around what is drawn in it; what is past the rows is cut")
    func strips() {
        var strips = StripSpans(rows: 40)
        #expect(strips.count == 3 && strips.bounds == nil)
        strips.add(LayoutRect(x: 100, y: 10, width: 50, height: 10))  // strips 0 and 1
        strips.add(LayoutRect(x: 20, y: 30, width: 10, height: 10))   // strips 1 and 2
        #expect(strips.rect(0) == LayoutRect(x: 100, y: 10, width: 50, height: 6))
        #expect(strips.rect(1) == LayoutRect(x: 20, y: 16, width: 130, height: 16))
        #expect(strips.rect(2) == LayoutRect(x: 20, y: 32, width: 10, height: 8))
        #expect(strips.bounds == LayoutRect(x: 20, y: 10, width: 130, height: 30))
        var other = StripSpans(rows: 40)
        other.add(LayoutRect(x: 200, y: 0, width: 5, height: 1))
        other.add(LayoutRect(x: 0, y: 38, width: 5, height: 10))  // cut to the rows
        #expect(strips.rect(0, joining: other) == LayoutRect(x: 100, y: 0, width: 105, height: 16))
        #expect(other.rect(2, joining: strips) == LayoutRect(x: 0, y: 32, width: 30, height: 8))
        other.copy(strips)
        #expect(other == strips)
        strips.clear()
        #expect(strips.bounds == nil && strips.rect(1) == nil)
    }

    @Test("The division the overlay's blending makes by multiplication is exact over its range")
    func divisions() {
        for x in stride(from: 0, through: 65_535, by: 7) { #expect(SubtitleBlending.divide255(x) == x / 255) }
        for divisor in 1...255 {
            for x in stride(from: 0, through: 255 * divisor, by: 13) where SubtitleBlending.divide(x, by: divisor) != x / divisor {
                Issue.record("\(x) / \(divisor)")
            }
        }
    }
}
