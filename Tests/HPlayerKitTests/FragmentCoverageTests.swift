import Testing
@testable import HPlayerKit

@Suite struct FragmentCoverageTests {
    static func fragment(_ offset: Int64, _ length: Int64) -> CachedFragment {
        CachedFragment(offset: offset, length: length, path: "/cache/data/\(offset)-\(length).frag")
    }

    static func cached(_ fragment: CachedFragment, _ offsetInFragment: Int64, _ length: Int64) -> RangePiece {
        .cached(fragment, offsetInFragment: offsetInFragment, length: length)
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var offset: Int64 = 0
        var length: Int64?
        var contentLength: Int64?
        var fragments: [CachedFragment]
        var pieces: [RangePiece]
        var testDescription: String { name }
    }

    static let a = fragment(10, 10)   // [10, 20)
    static let b = fragment(30, 10)   // [30, 40)
    static let long = fragment(0, 50)
    static let later = fragment(20, 50)   // [20, 70)

    static let rows: [Row] = [
        Row(name: "no fragments: one gap to the known end", contentLength: 100, fragments: [], pieces: [.gap(offset: 0, length: 100)]),
        Row(name: "no fragments, no length known: one gap to the end", fragments: [], pieces: [.gap(offset: 0, length: nil)]),
        Row(name: "gaps before, between and after", contentLength: 50, fragments: [a, b],
            pieces: [.gap(offset: 0, length: 10), cached(a, 0, 10), .gap(offset: 20, length: 10), cached(b, 0, 10), .gap(offset: 40, length: 10)]),
        Row(name: "fragments in any order", contentLength: 50, fragments: [b, a],
            pieces: [.gap(offset: 0, length: 10), cached(a, 0, 10), .gap(offset: 20, length: 10), cached(b, 0, 10), .gap(offset: 40, length: 10)]),
        Row(name: "a range inside one fragment", offset: 12, length: 5, contentLength: 100, fragments: [a], pieces: [cached(a, 2, 5)]),
        Row(name: "a range inside one gap", offset: 22, length: 5, contentLength: 100, fragments: [a, b], pieces: [.gap(offset: 22, length: 5)]),
        Row(name: "a range starting in a gap and ending in a fragment", offset: 25, length: 10, fragments: [a, b],
            pieces: [.gap(offset: 25, length: 5), cached(b, 0, 5)]),
        Row(name: "unknown length: a gap to the end after the last fragment", fragments: [a],
            pieces: [.gap(offset: 0, length: 10), cached(a, 0, 10), .gap(offset: 20, length: nil)]),
        Row(name: "unknown length, a fragment at the start", offset: 15, fragments: [a], pieces: [cached(a, 5, 5), .gap(offset: 20, length: nil)]),
        Row(name: "overlap: from the first fragment to its end, then the rest of the next", length: 100, fragments: [later, long],
            pieces: [cached(long, 0, 50), cached(later, 30, 20), .gap(offset: 70, length: 30)]),
        Row(name: "overlap: the fragment reaching furthest is preferred", offset: 5, length: 60,
            fragments: [fragment(0, 30), fragment(0, 60), fragment(10, 10)], pieces: [cached(fragment(0, 60), 5, 55), .gap(offset: 60, length: 5)]),
        Row(name: "a fragment inside another is never read", contentLength: 40, fragments: [fragment(5, 10), fragment(0, 40)],
            pieces: [cached(fragment(0, 40), 0, 40)]),
        Row(name: "adjacent fragments leave no gap", contentLength: 20, fragments: [fragment(0, 10), fragment(10, 10)],
            pieces: [cached(fragment(0, 10), 0, 10), cached(fragment(10, 10), 0, 10)]),
        Row(name: "a length past the content stops at its end", offset: 15, length: 100, contentLength: 25, fragments: [a],
            pieces: [cached(a, 5, 5), .gap(offset: 20, length: 5)]),
        Row(name: "a fragment past the content's end is cut at it", contentLength: 15, fragments: [a],
            pieces: [.gap(offset: 0, length: 10), cached(a, 0, 5)]),
        Row(name: "a range at the end is empty", offset: 100, contentLength: 100, fragments: [a], pieces: []),
        Row(name: "an empty fragment is no fragment", contentLength: 20, fragments: [fragment(5, 0)], pieces: [.gap(offset: 0, length: 20)]),
    ]

    @Test(arguments: rows)
    func pieces(_ row: Row) {
        #expect(FragmentCoverage.pieces(offset: row.offset, length: row.length, contentLength: row.contentLength, fragments: row.fragments) == row.pieces)
    }

    struct Covered: Sendable, CustomTestStringConvertible {
        var name: String
        var fragments: [CachedFragment]
        var contentLength: Int64?
        var bytes: Int64
        var testDescription: String { name }
    }

    @Test(arguments: [
        Covered(name: "nothing cached", fragments: [], contentLength: 100, bytes: 0),
        Covered(name: "disjoint fragments add up", fragments: [a, b], contentLength: 100, bytes: 20),
        Covered(name: "overlaps count once", fragments: [later, long], contentLength: 100, bytes: 70),
        Covered(name: "a fragment inside another counts once", fragments: [fragment(10, 10), fragment(0, 100)], contentLength: 100, bytes: 100),
        Covered(name: "bytes past the content's end do not count", fragments: [fragment(90, 20)], contentLength: 100, bytes: 10),
        Covered(name: "unknown length: every byte counts", fragments: [fragment(90, 20), fragment(0, 10)], contentLength: nil, bytes: 30),
    ])
    func coveredBytes(_ row: Covered) {
        #expect(FragmentCoverage.coveredBytes(of: row.fragments, contentLength: row.contentLength) == row.bytes)
    }
}
