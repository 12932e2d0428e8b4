/// A part of a requested byte range: bytes the cache holds, or a gap to fetch.
package enum RangePiece: Equatable, Sendable {
    case cached(CachedFragment, offsetInFragment: Int64, length: Int64)
    /// A nil length runs to the end of the content, whose length is unknown.
    case gap(offset: Int64, length: Int64?)
}

/// How a URL's cached fragments cover a byte range: what to read from disk and what to fetch.
package enum FragmentCoverage {
    /// How `[offset, offset+length)` (length nil: to `contentLength`, or to the end when that is
    /// nil too) is covered by `fragments` (any order, may overlap): cached pieces (preferring the
    /// fragment that reaches furthest) and gaps, in order, with no overlap, adjacent pieces merged
    /// where they come from the same fragment.
    ///
    /// A known `contentLength` also ends a range given a length: no gap asks for bytes past the
    /// end of the content.
    package static func pieces(offset: Int64, length: Int64?, contentLength: Int64?, fragments: [CachedFragment]) -> [RangePiece] {
        let requestedEnd = length.map { offset + $0 }
        let end = switch (requestedEnd, contentLength) {
        case let (requested?, content?): min(requested, content)
        case let (requested, content): requested ?? content
        }
        let fragments = fragments.filter { $0.length > 0 }
        var pieces: [RangePiece] = []
        var position = offset
        while end.map({ position < $0 }) ?? true {
            // Reading from the fragment that reaches furthest leaves the fewest pieces: the next
            // piece starts where it ends, so one fragment never gives two pieces in a row.
            let containing = fragments.filter { $0.offset <= position && position < $0.end }
            if let fragment = containing.max(by: { $0.end < $1.end }) {
                let pieceEnd = end.map { min($0, fragment.end) } ?? fragment.end
                pieces.append(.cached(fragment, offsetInFragment: position - fragment.offset, length: pieceEnd - position))
                position = pieceEnd
                continue
            }
            let nextStart = fragments.lazy.map(\.offset).filter { $0 > position }.min()
            guard let gapEnd = [nextStart, end].compactMap({ $0 }).min() else {
                pieces.append(.gap(offset: position, length: nil))
                break
            }
            pieces.append(.gap(offset: position, length: gapEnd - position))
            position = gapEnd
        }
        return pieces
    }

    /// Bytes of [0, contentLength) covered by the fragments (overlaps counted once).
    package static func coveredBytes(of fragments: [CachedFragment], contentLength: Int64?) -> Int64 {
        let limit = contentLength ?? .max
        var covered: Int64 = 0
        var reached: Int64 = 0
        for fragment in fragments.sorted(by: { $0.offset < $1.offset }) {
            let start = max(fragment.offset, reached, 0)
            let end = min(fragment.end, limit)
            if end > start {
                covered += end - start
                reached = end
            }
        }
        return covered
    }
}
