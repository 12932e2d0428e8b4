import Testing
@testable import HPlayerKit

@Suite struct RangeClaimsTests {
    static func ranges(_ pairs: [(Int64, Int64)]) -> [ByteRange] { pairs.map { ByteRange(start: $0.0, end: $0.1) } }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var wanted: (Int64, Int64)
        var held: [(Int64, Int64)]
        var free: [(Int64, Int64)]
        var testDescription: String { name }
    }

    @Test("The parts of a wanted range no claim holds", arguments: [
        Row(name: "nothing held: all of it", wanted: (0, 100), held: [], free: [(0, 100)]),
        Row(name: "all of it held", wanted: (0, 100), held: [(0, 100)], free: []),
        Row(name: "held by a wider claim", wanted: (10, 20), held: [(0, 100)], free: []),
        Row(name: "the head held", wanted: (0, 100), held: [(0, 40)], free: [(40, 100)]),
        Row(name: "the tail held", wanted: (0, 100), held: [(60, 200)], free: [(0, 60)]),
        Row(name: "holes between claims, given in any order", wanted: (0, 100), held: [(70, 80), (10, 20)], free: [(0, 10), (20, 70), (80, 100)]),
        Row(name: "overlapping claims counted once", wanted: (0, 100), held: [(10, 50), (30, 60)], free: [(0, 10), (60, 100)]),
        Row(name: "claims outside the range ignored", wanted: (100, 200), held: [(0, 100), (200, 300)], free: [(100, 200)]),
        Row(name: "to the end of the resource", wanted: (0, .max), held: [(50, 60)], free: [(0, 50), (60, .max)]),
        Row(name: "a claim to the end holds the rest", wanted: (0, .max), held: [(50, .max)], free: [(0, 50)]),
    ])
    func unclaimed(_ row: Row) {
        let wanted = ByteRange(start: row.wanted.0, end: row.wanted.1)
        #expect(RangeClaims.unclaimed(wanted, held: Self.ranges(row.held)) == Self.ranges(row.free))
    }

    @Test("The parts of a received block a reader claimed", arguments: [
        ((0, 100), [(0, .max)], [(0, 100)]),
        ((0, 100), [], []),
        ((0, 100), [(0, 30), (60, 80)], [(0, 30), (60, 80)]),
        ((50, 150), [(0, 60), (100, 200)], [(50, 60), (100, 150)]),
        ((50, 150), [(0, 50), (150, 200)], []),
    ] as [((Int64, Int64), [(Int64, Int64)], [(Int64, Int64)])])
    func owned(block: (Int64, Int64), claimed: [(Int64, Int64)], kept: [(Int64, Int64)]) {
        #expect(RangeClaims.owned(ByteRange(start: block.0, end: block.1), claimed: Self.ranges(claimed)) == Self.ranges(kept))
    }
}
