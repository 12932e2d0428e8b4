import HPlayerSDL
import HPlayerKit
import Testing

@Suite struct WindowGeometryTests {
    @Test("mpv's --geometry", arguments: [
        ("640x360", WindowGeometry(width: 640, height: 360)),
        ("640", WindowGeometry(width: 640)),
        ("x360", WindowGeometry(height: 360)),
        ("+10+20", WindowGeometry(x: 10, y: 20)),
        ("+0-5", WindowGeometry(x: 0, y: -5)),
        ("800x600+30+40", WindowGeometry(width: 800, height: 600, x: 30, y: 40)),
    ])
    func parses(text: String, geometry: WindowGeometry) {
        #expect(WindowGeometry(text) == geometry)
    }

    @Test("Not a geometry", arguments: ["", "x", "0x100", "100x0", "-5x10", "axb", "100x100+5", "+5", "100y100", "1x2x3", "+a+b", "100x100++"])
    func rejects(text: String) {
        #expect(WindowGeometry(text) == nil)
    }
}

@Suite struct WindowLayoutTests {
    @Test("Chapter marks: a tick through the bar at each chapter's start; none at 0 or past the end, none without a duration")
    func chapterMarks() {
        let bar = LayoutRect(x: 10, y: 100, width: 200, height: 6)
        #expect(WindowLayout.chapterMarks([0, 25, 50, 100, 120], duration: 100, bar: bar) == [
            LayoutRect(x: 59, y: 97, width: 2, height: 12), LayoutRect(x: 109, y: 97, width: 2, height: 12),
        ])
        #expect(WindowLayout.chapterMarks([25], duration: 0, bar: bar) == [])
    }

    @Test("Window size", arguments: [
        // display, geometry, screen → window
        ((320, 240), nil, (1280, 720), (320, 240)),
        ((1920, 1080), nil, (1280, 720), (1152, 648)),  // shrunk to 90 % of the screen
        ((1920, 1080), nil, nil, (1920, 1080)),
        ((640, 240), WindowGeometry(width: 400, height: 300), (1280, 720), (400, 300)),  // as asked, even off shape
        ((640, 240), WindowGeometry(width: 320), (1280, 720), (320, 120)),  // a lone width keeps the shape
        ((640, 240), WindowGeometry(height: 120), (1280, 720), (320, 120)),
        ((320, 240), WindowGeometry(x: 5, y: 5), (1280, 720), (320, 240)),  // a position alone keeps the size
    ] as [((Int, Int), WindowGeometry?, (Int, Int)?, (Int, Int))])
    func windowSize(display: (Int, Int), geometry: WindowGeometry?, screen: (Int, Int)?, expected: (Int, Int)) {
        let size = WindowLayout.windowSize(display: display, geometry: geometry, screen: screen)
        #expect(size == expected)
    }

    @Test("Letterbox and pillarbox", arguments: [
        ((320, 240), (320, 240), LayoutRect(x: 0, y: 0, width: 320, height: 240)),
        ((1920, 1080), (800, 800), LayoutRect(x: 0, y: 175, width: 800, height: 450)),  // bars above and below
        ((320, 240), (1000, 300), LayoutRect(x: 300, y: 0, width: 400, height: 300)),  // bars left and right
        ((0, 0), (100, 50), LayoutRect(x: 0, y: 0, width: 100, height: 50)),  // no picture size yet
    ] as [((Int, Int), (Int, Int), LayoutRect)])
    func pictureRect(display: (Int, Int), window: (Int, Int), expected: LayoutRect) {
        #expect(WindowLayout.pictureRect(display: display, window: window) == expected)
    }

    @Test func aQuarterTurnDrawsTheUnturnedPictureAcrossTheSameCentre() {
        let shown = LayoutRect(x: 100, y: 0, width: 240, height: 320)  // a portrait picture, shown upright
        #expect(WindowLayout.drawRect(shown: shown, rotation: 0) == shown)
        #expect(WindowLayout.drawRect(shown: shown, rotation: 180) == shown)
        let drawn = WindowLayout.drawRect(shown: shown, rotation: 90)
        #expect(drawn == LayoutRect(x: 60, y: 40, width: 320, height: 240))
        #expect(drawn.x * 2 + drawn.width == shown.x * 2 + shown.width)
        #expect(drawn.y * 2 + drawn.height == shown.y * 2 + shown.height)
        #expect(WindowLayout.drawRect(shown: shown, rotation: 270) == drawn)
    }

    @Test func theProgressBarAndWhereAClickSeeks() {
        let bar = WindowLayout.progressBar(window: (800, 600))
        #expect(bar == LayoutRect(x: 20, y: 570, width: 760, height: 10))
        #expect(WindowLayout.seekFraction(x: 20, bar: bar) == 0)
        #expect(WindowLayout.seekFraction(x: 400, bar: bar) == 0.5)
        #expect(WindowLayout.seekFraction(x: 780, bar: bar) == 1)
        #expect(WindowLayout.seekFraction(x: 5, bar: bar) == 0, "a drag past the ends stays at the ends")
        #expect(WindowLayout.seekFraction(x: 900, bar: bar) == 1)

        let hits = WindowLayout.progressBarHitArea(window: (800, 600))
        #expect(hits.contains(x: 400, y: 560), "just above the bar")
        #expect(hits.contains(x: 400, y: 575))
        #expect(!hits.contains(x: 400, y: 300), "the middle of the picture")
        #expect(!hits.contains(x: 10, y: 575), "the margin")
    }

    @Test func theCachedRangesOnTheProgressBar() {
        let bar = LayoutRect(x: 20, y: 570, width: 760, height: 10)
        let spans = WindowLayout.cachedSpans([TimeRange(start: 0, end: 2.5), TimeRange(start: 5, end: 10)], duration: 10, bar: bar)
        #expect(spans == [LayoutRect(x: 20, y: 570, width: 190, height: 10), LayoutRect(x: 400, y: 570, width: 380, height: 10)])
        // A sliver still shows; a range past the end stops at the bar's end; no duration, nothing.
        #expect(WindowLayout.cachedSpans([TimeRange(start: 5, end: 5.001)], duration: 10, bar: bar) == [LayoutRect(x: 400, y: 570, width: 1, height: 10)])
        #expect(WindowLayout.cachedSpans([TimeRange(start: 9, end: 12)], duration: 10, bar: bar) == [LayoutRect(x: 704, y: 570, width: 76, height: 10)])
        #expect(WindowLayout.cachedSpans([TimeRange(start: 0, end: 1)], duration: 0, bar: bar).isEmpty)
    }

    @Test func aVariantSwitchReachingTheScreenIsNoticed() {
        let small = PictureSize(width: 640, height: 360), large = PictureSize(width: 1280, height: 720)
        let variant = VariantInfo(bandwidth: 2_800_000, width: 1280, height: 720, codecs: [], isPlaying: true)
        #expect(SDLWindow.variantNotice(shown: large, before: small, variant: variant) == "1280x720 2.8 Mb/s")
        // The variant fetched has moved on again: the size alone.
        #expect(SDLWindow.variantNotice(shown: small, before: large, variant: variant) == "640x360")
        #expect(SDLWindow.variantNotice(shown: large, before: nil, variant: variant) == nil, "the first picture")
        #expect(SDLWindow.variantNotice(shown: large, before: large, variant: variant) == nil, "no change")
        #expect(SDLWindow.variantNotice(shown: large, before: small, variant: nil) == nil, "not HLS")
    }
}
