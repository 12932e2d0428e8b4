import Testing
@testable import HPlayerKit

@Suite struct SaturatingConversionTests {
    @Test("Doubles to Int64: rounded, clamped, NaN as zero", arguments: [
        (0.4, Int64(0)), (0.5, 1), (-0.5, -1), (1e19, Int64.max),
        (1e300, Int64.max), (-1e300, Int64.min), (.infinity, Int64.max), (-.infinity, Int64.min), (.nan, 0),
        (9_223_372_036_854_775_807.0, Int64.max), (-9_223_372_036_854_775_808.0, Int64.min), (1e18, 1_000_000_000_000_000_000),
    ])
    func toInt64(_ value: Double, _ expected: Int64) {
        #expect(Int64(saturating: value) == expected)
    }

    @Test("Rounding rules and narrower types")
    func rulesAndNarrowTypes() {
        #expect(Int(saturating: 2.9, rounding: .down) == 2)
        #expect(Int(saturating: 2.1, rounding: .up) == 3)
        #expect(Int(saturating: -2.9, rounding: .towardZero) == -2)
        #expect(Int32(saturating: 3e9) == Int32.max)
        #expect(Int32(saturating: -3e9) == Int32.min)
        #expect(Int32(saturating: 2_147_483_647.0) == Int32.max)
        #expect(UInt8(saturating: -1) == 0)
        #expect(UInt8(saturating: 255.4) == 255)
        #expect(UInt8(saturating: 300) == 255)
    }

    @Test("Times as text take any Double")
    func timeText() {
        #expect(TimeText.clock(1e300) == TimeText.clock(Double(Int.max)))
        #expect(TimeText.clock(.nan) == "00:00:00")
        #expect(TimeText.precise(-5) == "00:00:00.000")
        #expect(DecimalText.fixed(.nan, places: 2) == "0.00")
        #expect(!DecimalText.fixed(1e300, places: 2).isEmpty)
    }
}
