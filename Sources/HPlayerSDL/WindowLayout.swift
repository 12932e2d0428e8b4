import HPlayerKit

/// mpv's `--geometry`: `WxH`, `+X+Y` or `WxH+X+Y` (either size may be left out: `W`, `xH`).
public struct WindowGeometry: Equatable, Sendable {
    /// The window's width in pixels; nil with a height alone keeps the picture's shape.
    public var width: Int?
    /// The window's height in pixels; nil with a width alone keeps the picture's shape.
    public var height: Int?
    /// The window's left edge in screen pixels, as SDL places it; nil: centred.
    public var x: Int?
    /// The window's top edge in screen pixels; set with `x`.
    public var y: Int?

    /// A geometry, as the fields say; with none set, the window takes the picture's size.
    public init(width: Int? = nil, height: Int? = nil, x: Int? = nil, y: Int? = nil) {
        self.width = width
        self.height = height
        self.x = x
        self.y = y
    }

    /// nil when `text` is not a geometry.
    public init?(_ text: String) {
        var size = Substring(text)
        var position: Substring = ""
        if let sign = text.firstIndex(where: { $0 == "+" || $0 == "-" }) {
            size = text[..<sign]
            position = text[sign...]
        }
        if !size.isEmpty {
            let parts = size.split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count <= 2 else { return nil }
            if !parts[0].isEmpty {
                guard let width = Int32(parts[0]), width > 0 else { return nil }
                self.width = Int(width)
            }
            if parts.count == 2 {
                guard let height = Int32(parts[1]), height > 0 else { return nil }
                self.height = Int(height)
            }
            guard self.width != nil || self.height != nil else { return nil }
        }
        if !position.isEmpty {
            // "+X+Y" or with minus signs: two signed numbers.
            guard let second = position.dropFirst().firstIndex(where: { $0 == "+" || $0 == "-" }),
                  let x = Self.signedNumber(position[..<second]),
                  let y = Self.signedNumber(position[second...]) else { return nil }
            self.x = x
            self.y = y
        }
        guard width != nil || height != nil || x != nil else { return nil }
    }

    /// "+12" or "-12"; what a window position (SDL's 32 bits) can hold.
    private static func signedNumber(_ text: Substring) -> Int? {
        guard let sign = text.first, let value = Int32(text.dropFirst()), !text.dropFirst().isEmpty else { return nil }
        return sign == "-" ? -Int(value) : Int(value)
    }
}

/// Where things go in the window, as pure functions.
package enum WindowLayout {
    /// The window size for a picture shown at `display` size: what the geometry asks for (a
    /// lone width or height keeps the picture's shape), else the picture's own size, shrunk to
    /// fit 90 % of `screen`.
    package static func windowSize(display: (width: Int, height: Int), geometry: WindowGeometry?,
                                  screen: (width: Int, height: Int)?) -> (width: Int, height: Int) {
        let aspect = display.height > 0 ? Double(display.width) / Double(display.height) : 16.0 / 9
        switch (geometry?.width, geometry?.height) {
        case let (width?, height?): return (width, height)
        case let (width?, nil): return (width, max(1, Int(saturating: Double(width) / aspect)))
        case let (nil, height?): return (max(1, Int(saturating: Double(height) * aspect)), height)
        case (nil, nil): break
        }
        var size = (width: max(display.width, 1), height: max(display.height, 1))
        if let screen, screen.width > 0, screen.height > 0 {
            let scale = min(1, 0.9 * Double(screen.width) / Double(size.width), 0.9 * Double(screen.height) / Double(size.height))
            size = (max(1, Int((Double(size.width) * scale).rounded())), max(1, Int((Double(size.height) * scale).rounded())))
        }
        return size
    }

    /// The largest rectangle with the picture's shape that fits the window, centred (letterbox
    /// or pillarbox bars around it).
    package static func pictureRect(display: (width: Int, height: Int), window: (width: Int, height: Int)) -> LayoutRect {
        guard display.width > 0, display.height > 0, window.width > 0, window.height > 0 else {
            return LayoutRect(x: 0, y: 0, width: window.width, height: window.height)
        }
        let scale = min(Double(window.width) / Double(display.width), Double(window.height) / Double(display.height))
        let width = Int((Double(display.width) * scale).rounded())
        let height = Int((Double(display.height) * scale).rounded())
        return LayoutRect(x: (window.width - width) / 2, y: (window.height - height) / 2, width: width, height: height)
    }

    /// The rectangle to draw the unrotated picture into so that, turned by `rotation` degrees
    /// about its centre, it covers `shown`.
    package static func drawRect(shown: LayoutRect, rotation: Int) -> LayoutRect {
        guard rotation == 90 || rotation == 270 else { return shown }
        let centerX = shown.x * 2 + shown.width, centerY = shown.y * 2 + shown.height  // doubled, to stay in integers
        return LayoutRect(x: (centerX - shown.height) / 2, y: (centerY - shown.width) / 2, width: shown.height, height: shown.width)
    }

    /// The progress bar along the bottom of the window.
    package static func progressBar(window: (width: Int, height: Int)) -> LayoutRect {
        let margin = max(8, window.width / 40)
        let height = max(6, window.height / 60)
        return LayoutRect(x: margin, y: window.height - margin - height, width: max(1, window.width - 2 * margin), height: height)
    }

    /// The area that takes clicks on the bar: taller than the bar, so it is easy to hit.
    package static func progressBarHitArea(window: (width: Int, height: Int)) -> LayoutRect {
        let bar = progressBar(window: window)
        return LayoutRect(x: bar.x, y: bar.y - 2 * bar.height, width: bar.width, height: 5 * bar.height)
    }

    /// The parts of the bar that stand for `ranges` of a medium of `duration` seconds; a range
    /// narrower than a pixel still shows, one pixel wide.
    package static func cachedSpans(_ ranges: [TimeRange], duration: Double, bar: LayoutRect) -> [LayoutRect] {
        guard duration > 0, bar.width > 0 else { return [] }
        return ranges.compactMap { range in
            let start = Int((max(0, range.start) / duration * Double(bar.width)).rounded(.down))
            let end = Int((min(duration, range.end) / duration * Double(bar.width)).rounded(.up))
            guard end > start else { return nil }
            return LayoutRect(x: bar.x + start, y: bar.y, width: min(end, bar.width) - start, height: bar.height)
        }
    }

    /// A tick through the bar, taller than it, at each chapter's start within a medium of
    /// `duration` seconds (none at 0, where the bar begins anyway).
    package static func chapterMarks(_ starts: [Double], duration: Double, bar: LayoutRect) -> [LayoutRect] {
        guard duration > 0, bar.width > 0 else { return [] }
        let width = max(2, bar.height / 3)
        return starts.compactMap { start in
            guard start > 0, start < duration else { return nil }
            let x = bar.x + Int((start / duration * Double(bar.width)).rounded()) - width / 2
            return LayoutRect(x: x, y: bar.y - bar.height / 2, width: width, height: 2 * bar.height)
        }
    }

    /// The fraction of the media a point on the bar stands for, 0...1.
    package static func seekFraction(x: Int, bar: LayoutRect) -> Double {
        guard bar.width > 0 else { return 0 }
        return min(1, max(0, Double(x - bar.x) / Double(bar.width)))
    }
}
