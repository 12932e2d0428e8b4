import Testing
@testable import HPlayerKit

@Suite struct CacheEvictionTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var sizes: [(url: String, bytes: Int64, lastUsed: Double)]
        var maxBytes: Int64
        var inUse: Set<String> = []
        var victims: [String]
        var testDescription: String { name }
    }

    /// 160 bytes, a used longest ago.
    static let four: [(url: String, bytes: Int64, lastUsed: Double)] = [
        (url: "c", bytes: 40, lastUsed: 3), (url: "a", bytes: 40, lastUsed: 1), (url: "d", bytes: 40, lastUsed: 4), (url: "b", bytes: 40, lastUsed: 2),
    ]

    @Test(arguments: [
        Row(name: "under the limit: nothing", sizes: four, maxBytes: 200, victims: []),
        Row(name: "at the limit: nothing", sizes: four, maxBytes: 160, victims: []),
        Row(name: "least recently used first, until at or under the limit", sizes: four, maxBytes: 80, victims: ["a", "b"]),
        Row(name: "one byte over: one URL", sizes: four, maxBytes: 159, victims: ["a"]),
        Row(name: "URLs in use are kept", sizes: four, maxBytes: 80, inUse: ["a"], victims: ["b", "c"]),
        Row(name: "nothing left to drop but URLs in use", sizes: four, maxBytes: 0, inUse: ["a", "b", "c"], victims: ["d"]),
        Row(name: "a limit of zero drops everything", sizes: four, maxBytes: 0, victims: ["a", "b", "c", "d"]),
        Row(name: "ties go by URL", sizes: [(url: "y", bytes: 10, lastUsed: 1), (url: "x", bytes: 10, lastUsed: 1)], maxBytes: 10, victims: ["x"]),
        Row(name: "no URLs", sizes: [], maxBytes: 0, victims: []),
    ])
    func victims(_ row: Row) {
        #expect(CacheEviction.victims(sizes: row.sizes, maxBytes: row.maxBytes, inUse: row.inUse) == row.victims)
    }
}
