/// One rendition of an HLS ladder: a picture height and a video bit rate.
package struct LadderRung: Equatable, Sendable, CustomStringConvertible {
    package var height: Int
    /// Video bits per second.
    package var bitRate: Int

    package init(height: Int, bitRate: Int) {
        self.height = height
        self.bitRate = bitRate
    }

    /// "720p:2800k", as `--ladder` takes it.
    package var description: String { "\(height)p:\(bitRate / 1000)k" }

    /// The width for a source of `sourceWidth` × `sourceHeight`: the same shape, even.
    package func width(sourceWidth: Int, sourceHeight: Int) -> Int {
        guard sourceHeight > 0 else { return height * 16 / 9 & ~1 }
        return max(Int((Double(height) * Double(sourceWidth) / Double(sourceHeight) / 2).rounded()) * 2, 2)
    }
}

/// The renditions `--hls` makes.
package enum Ladder {
    /// The design's ladder, of which the rungs no taller than the source are made.
    package static let standard = [LadderRung(height: 1080, bitRate: 5_000_000), LadderRung(height: 720, bitRate: 2_800_000),
                                  LadderRung(height: 360, bitRate: 800_000)]

    /// `1080p:5000k,720p:2800k,360p:800k`: rungs from the top, heights even and falling.
    package static func parse(_ text: String) throws(MediaError) -> [LadderRung] {
        var rungs: [LadderRung] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0].hasSuffix("p"), let height = Int(parts[0].dropLast()),
                  (16...4320).contains(height), height % 2 == 0,
                  parts[1].hasSuffix("k"), let kilobits = Int(parts[1].dropLast()), (50...100_000).contains(kilobits) else {
                throw MediaError(input: "--ladder", reason: "expected HEIGHTp:RATEk items such as 720p:2800k (even heights), got '\(item)'")
            }
            if let last = rungs.last, last.height <= height {
                throw MediaError(input: "--ladder", reason: "the rungs go from the tallest down: \(last.height)p before \(height)p")
            }
            rungs.append(LadderRung(height: height, bitRate: kilobits * 1000))
        }
        return rungs
    }

    /// The standard rungs no taller than the source; a source under the lowest gets that one's
    /// rate at its own height.
    package static func standard(sourceHeight: Int) -> [LadderRung] {
        let fitting = standard.filter { $0.height <= sourceHeight }
        if !fitting.isEmpty { return fitting }
        return [LadderRung(height: max(sourceHeight & ~1, 2), bitRate: standard.last!.bitRate)]
    }
}
