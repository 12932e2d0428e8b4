import Testing
@testable import HPlayerKit

@Suite struct CachedTimeRangesTests {
    static func fragments(_ pairs: [(Int64, Int64)]) -> [CachedFragment] {
        pairs.map { CachedFragment(offset: $0.0, length: $0.1 - $0.0, path: "/f") }
    }

    static func times(_ pairs: [(Double, Double)]) -> [TimeRange] { pairs.map { TimeRange(start: $0.0, end: $0.1) } }

    @Test("A progressive file's cached bytes as time, spread evenly over its duration", arguments: [
        ([(0, 250)], 1000 as Int64, 8.0, [(0, 2)]),
        // Adjacent and overlapping fragments make one range; any order.
        ([(500, 1000), (0, 250), (250, 300), (200, 260)], 1000, 8, [(0, 2.4), (4, 8)]),
        // Past the content's end is cut off; an empty fragment is nothing.
        ([(750, 2000), (100, 100)], 1000, 8, [(6, 8)]),
        // No length or no duration: nothing to place.
        ([(0, 250)], 0, 8, []),
        ([(0, 250)], 1000, 0, []),
    ] as [([(Int64, Int64)], Int64, Double, [(Double, Double)])])
    func progressive(fragments: [(Int64, Int64)], contentLength: Int64, duration: Double, ranges: [(Double, Double)]) {
        #expect(CachedTimeRanges.progressive(fragments: Self.fragments(fragments), contentLength: contentLength, duration: duration)
            == Self.times(ranges))
    }

    @Test("Cached segments as time: consecutive ones make one range", arguments: [
        ([true, true, false, true], [(0, 8), (12, 16)]),
        ([false, false, false, false], []),
        ([true, true, true, true], [(0, 16)]),
        ([false, true, false, true], [(4, 8), (12, 16)]),
    ] as [([Bool], [(Double, Double)])])
    func segments(cached: [Bool], ranges: [(Double, Double)]) {
        let spans = (0..<4).map { SegmentSpan(url: "s\($0).ts", start: Double($0) * 4, duration: 4) }
        #expect(CachedTimeRanges.segments(spans, cached: cached) == Self.times(ranges))
    }
}
