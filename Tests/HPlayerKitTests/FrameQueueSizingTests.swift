import Testing
@testable import HPlayerKit

@Suite struct FrameQueueSizingTests {
    static let budget = 16 << 20

    @Test("Video frame queue capacity by picture size", arguments: [
        (bytes: 320 * 240 * 3 / 2, maximum: 8, expected: 8),
        (bytes: 1280 * 720 * 3 / 2, maximum: 8, expected: 8),
        (bytes: 1920 * 1080 * 3 / 2, maximum: 8, expected: 4),
        (bytes: 1920 * 1080 * 3, maximum: 8, expected: 4),  // 10-bit 1080p
        (bytes: 3840 * 2160 * 3 / 2, maximum: 8, expected: 4),  // over the budget: never under 4
        (bytes: 320 * 240 * 3 / 2, maximum: 16, expected: 16),
        (bytes: 0, maximum: 8, expected: 8),  // size unknown
        (bytes: 320 * 240 * 3 / 2, maximum: 2, expected: 2),  // a smaller maximum wins
    ])
    func videoCapacity(bytes: Int, maximum: Int, expected: Int) {
        #expect(FrameQueueSizing.videoCapacity(frameBytes: bytes, budget: Self.budget, maximum: maximum) == expected)
    }
}
