/// A rectangle of pixels: in a window, or in a picture.
package struct LayoutRect: Equatable, Sendable {
    package var x: Int
    package var y: Int
    package var width: Int
    package var height: Int

    package init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    package func contains(x px: Int, y py: Int) -> Bool {
        px >= x && px < x + width && py >= y && py < y + height
    }

    /// The smallest rectangle holding both; nil when both are nil.
    package static func union(_ a: LayoutRect?, _ b: LayoutRect?) -> LayoutRect? {
        guard let a else { return b }
        guard let b else { return a }
        let left = min(a.x, b.x), top = min(a.y, b.y)
        let right = max(a.x + a.width, b.x + b.width), bottom = max(a.y + a.height, b.y + b.height)
        return LayoutRect(x: left, y: top, width: right - left, height: bottom - top)
    }
}
