/// A run of a URL's bytes, [start, end); an end of Int64.max runs to the resource's end.
package struct ByteRange: Equatable, Sendable {
    package var start: Int64
    package var end: Int64

    package init(start: Int64, end: Int64) {
        self.start = start
        self.end = end
    }
}

/// A writer's claim on a range of a URL, as the index holds it: while its owner lives, no other
/// writer keeps those bytes (one writer per range; another player fetches them for itself).
package struct RangeClaim: Equatable, Sendable {
    /// The index row's id; nil for a range written unclaimed (the index could not be asked).
    package var id: Int64?
    package var range: ByteRange

    package init(id: Int64?, range: ByteRange) {
        self.id = id
        self.range = range
    }
}

/// Which bytes a writer may keep, given the claims: interval arithmetic over plain values.
package enum RangeClaims {
    /// The parts of `wanted` that no range of `held` (any order, may overlap) covers, in order.
    package static func unclaimed(_ wanted: ByteRange, held: [ByteRange]) -> [ByteRange] {
        var free: [ByteRange] = []
        var position = wanted.start
        for range in held.sorted(by: { $0.start < $1.start }) where range.end > position && range.start < wanted.end {
            if range.start > position { free.append(ByteRange(start: position, end: range.start)) }
            position = max(position, range.end)
            if position >= wanted.end { return free }
        }
        if position < wanted.end { free.append(ByteRange(start: position, end: wanted.end)) }
        return free
    }

    /// The parts of `block` inside the ranges of `claimed` (sorted, not overlapping), in order.
    package static func owned(_ block: ByteRange, claimed: [ByteRange]) -> [ByteRange] {
        claimed.compactMap { range in
            let start = max(block.start, range.start), end = min(block.end, range.end)
            return start < end ? ByteRange(start: start, end: end) : nil
        }
    }
}
