/// Where a picture has something drawn, band by band: for each strip of `height` rows, the box
/// around what is drawn in it (the columns from the leftmost to the rightmost, the rows from the
/// first to the last). Clearing, uploading and
/// blending these, not the box around everything, leaves out what lies between the lines of a
/// busy script (a diagonal of moving lines covers the whole screen's box, a third of its strips).
///
/// Kept in place: clearing and adding make nothing, so a drawing at every frame allocates nothing.
package struct StripSpans: Equatable, Sendable {
    package static let height = 16

    /// The rows it covers.
    package private(set) var rows: Int
    private var lefts: [Int]
    private var rights: [Int]
    private var tops: [Int]
    private var bottoms: [Int]

    package init(rows: Int) {
        self.rows = max(0, rows)
        let count = (self.rows + Self.height - 1) / Self.height
        lefts = Array(repeating: .max, count: count)
        rights = Array(repeating: .min, count: count)
        tops = Array(repeating: .max, count: count)
        bottoms = Array(repeating: .min, count: count)
    }

    package var count: Int { lefts.count }

    /// Strip `index`'s drawn part, nil when nothing is drawn in it.
    package func rect(_ index: Int) -> LayoutRect? {
        guard lefts[index] < rights[index], tops[index] < bottoms[index] else { return nil }
        return LayoutRect(x: lefts[index], y: tops[index], width: rights[index] - lefts[index], height: bottoms[index] - tops[index])
    }

    /// Strip `index`'s columns drawn here or in `other` (of the same rows), as a rect; nil when neither has any.
    package func rect(_ index: Int, joining other: StripSpans) -> LayoutRect? {
        LayoutRect.union(rect(index), other.count == count ? other.rect(index) : nil)
    }

    /// The box around everything drawn; nil when nothing is.
    package var bounds: LayoutRect? {
        var box: LayoutRect?
        for index in lefts.indices { box = LayoutRect.union(box, rect(index)) }
        return box
    }

    /// Nothing drawn.
    package mutating func clear() {
        for index in lefts.indices {
            (lefts[index], rights[index]) = (.max, .min)
            (tops[index], bottoms[index]) = (.max, .min)
        }
    }

    /// `rect` (within the rows) drawn.
    package mutating func add(_ rect: LayoutRect) {
        let top = max(0, rect.y), bottom = min(rows, rect.y + rect.height)
        guard rect.width > 0, bottom > top else { return }
        for index in (top / Self.height)...((bottom - 1) / Self.height) {
            lefts[index] = min(lefts[index], rect.x)
            rights[index] = max(rights[index], rect.x + rect.width)
            tops[index] = min(tops[index], max(top, index * Self.height))
            bottoms[index] = max(bottoms[index], min(bottom, (index + 1) * Self.height))
        }
    }

    /// Becomes what `other` says, keeping its own storage when the sizes agree.
    package mutating func copy(_ other: StripSpans) {
        if other.rows != rows { self = StripSpans(rows: other.rows) }
        for index in lefts.indices {
            (lefts[index], rights[index]) = (other.lefts[index], other.rights[index])
            (tops[index], bottoms[index]) = (other.tops[index], other.bottoms[index])
        }
    }
}
