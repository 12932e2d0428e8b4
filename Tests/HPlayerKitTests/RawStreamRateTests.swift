@testable import HPlayerKit
import Testing

@Suite struct RawStreamRateTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var override: Double?
        var bitstream: Double?
        var expected: RawStreamRate
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "the override wins over the parameter sets", override: 50, bitstream: 30,
            expected: RawStreamRate(framesPerSecond: 50, origin: .override)),
        Row(name: "the parameter sets' rate", override: nil, bitstream: 29.97,
            expected: RawStreamRate(framesPerSecond: 29.97, origin: .bitstream)),
        Row(name: "neither: 25 assumed", override: nil, bitstream: nil,
            expected: RawStreamRate(framesPerSecond: 25, origin: .assumed)),
        Row(name: "a rate of 0 in the parameter sets is none", override: nil, bitstream: 0,
            expected: RawStreamRate(framesPerSecond: 25, origin: .assumed)),
        Row(name: "an absurd rate in the parameter sets is none", override: nil, bitstream: 90000,
            expected: RawStreamRate(framesPerSecond: 25, origin: .assumed)),
        Row(name: "an unusable override falls through to the parameter sets", override: .infinity, bitstream: 24,
            expected: RawStreamRate(framesPerSecond: 24, origin: .bitstream)),
    ]

    @Test(arguments: rows)
    func choose(_ row: Row) {
        #expect(RawStreamRate.choose(override: row.override, bitstream: row.bitstream) == row.expected)
    }

    @Test func summarySaysWhichRateAndWhy() {
        #expect(RawStreamRate(framesPerSecond: 30, origin: .bitstream).summary
            == "no timestamps in the stream: paced at 30.000 fps, the rate its parameter sets give")
        #expect(RawStreamRate(framesPerSecond: 50, origin: .override).summary
            == "no timestamps in the stream: paced at 50.000 fps, as --container-fps-override says")
        #expect(RawStreamRate(framesPerSecond: 25, origin: .assumed).summary
            == "no timestamps and no frame rate in the stream: paced at 25.000 fps (--container-fps-override sets another)")
    }
}
