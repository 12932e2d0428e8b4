import Testing
@testable import HPlayerKit

@Suite struct RenditionReadingTests {
    @Test("The input read least far in time is read next; ended and unwanted inputs are not")
    func leastFarFirst() {
        var reading = RenditionReading(inputs: 2)
        #expect(reading.next { _ in true } == 0, "before any packet, the first input")
        reading.read(0, at: 10.0, lasting: 0.04)
        #expect(reading.next { _ in true } == 1)
        reading.read(1, at: 9.98, lasting: 0.023)
        #expect(reading.next { _ in true } == 1)
        reading.read(1, at: 10.02, lasting: 0.023)
        #expect(reading.next { _ in true } == 0)
        #expect(reading.next { $0 == 0 } == 0)
        #expect(reading.next { $0 == 1 } == 1)
        reading.end(0)
        #expect(reading.next { _ in true } == 1)
        reading.end(1)
        #expect(reading.next { _ in true } == nil)
    }

    @Test("An unstamped packet follows the one before it by that one's duration; before any stamp it moves nothing")
    func unstampedPackets() {
        var reading = RenditionReading(inputs: 2)
        reading.read(1, at: nil, lasting: 0.023)
        #expect(reading.times[1] == -.infinity)
        reading.read(1, at: 1.0, lasting: 0.025)
        reading.read(1, at: nil, lasting: 0.025)
        reading.read(1, at: nil, lasting: 0.025)
        #expect(abs(reading.times[1] - 1.05) < 1e-9)
        reading.read(0, at: 1.04, lasting: 0.04)
        #expect(reading.next { _ in true } == 0)
    }
}
