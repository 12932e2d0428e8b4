import Testing
import HPlayerTestSupport
import Synchronization
@testable import HPlayerKit

@Suite struct RingBufferTests {
    @Test func capacityIsRoundedUpToAPowerOfTwo() {
        #expect(RingBuffer<Int>(capacity: 5).capacity == 8)
        #expect(RingBuffer<Int>(capacity: 8).capacity == 8)
        #expect(RingBuffer<Int>(capacity: 256).capacity == 256)
        #expect(RingBuffer<Int>(capacity: 0).capacity == 2)
    }

    @Test func popsInPushOrderAcrossTheWrap() {
        let buffer = RingBuffer<Int>(capacity: 4)
        var popped: [Int] = []
        for round in 0..<10 {
            for value in 0..<3 { #expect(buffer.push(round * 3 + value) == .pushed) }
            while let value = buffer.pop(blocking: false) { popped.append(value) }
        }
        #expect(popped == Array(0..<30))
    }

    @Test("wakeConsumer: a waiting pop returns nil; asked while elements remain, they come first")
    func wakeConsumer() async {
        let buffer = RingBuffer<Int>(capacity: 4)
        let popped = Mutex<[Int?]>([])
        let consumer = JoinableThread(name: "consumer") {
            let value = buffer.pop(blocking: true)
            popped.withLock { $0.append(value) }
        }
        try? await Task.sleep(for: .milliseconds(50))
        buffer.wakeConsumer()
        consumer.join()
        #expect(popped.withLock { $0 } == [nil])

        _ = buffer.push(1)
        buffer.wakeConsumer()
        #expect(buffer.pop(blocking: true) == 1)
        #expect(buffer.pop(blocking: true) == nil, "the wake is kept until the buffer is empty")
        #expect(!buffer.isClosed)
    }

    @Test func nonBlockingPopOnEmptyReturnsNothingAtOnce() {
        let buffer = RingBuffer<Int>(capacity: 4)
        #expect(buffer.pop(blocking: false) == nil)
    }

    @Test func blockingPopSleepsUntilAPush() {
        let buffer = RingBuffer<Int>(capacity: 4)
        let got = Atomic<Int>(-1)
        let consumer = JoinableThread(name: "test-pop") { got.store(buffer.pop(blocking: true) ?? -2, ordering: .releasing) }
        MonotonicClock.sleep(until: MonotonicClock.now() + 0.05)
        #expect(got.load(ordering: .acquiring) == -1, "pop returned before anything was pushed")
        #expect(buffer.push(42) == .pushed)
        consumer.join()
        #expect(got.load(ordering: .acquiring) == 42)
    }

    @Test func aBatchConsumerWakesOnceTheBatchIsThere() {
        let buffer = RingBuffer<Int>(capacity: 8)
        let got = Atomic<Int>(-1)
        let consumer = JoinableThread(name: "test-pop") { got.store(buffer.pop(blocking: true, batch: 3) ?? -2, ordering: .releasing) }
        MonotonicClock.sleep(until: MonotonicClock.now() + 0.05)  // the consumer finds it empty and waits
        for value in [7, 8] {
            #expect(buffer.push(value) == .pushed)
            MonotonicClock.sleep(until: MonotonicClock.now() + 0.05)
            #expect(got.load(ordering: .acquiring) == -1, "woken before the batch of 3 was there")
        }
        #expect(buffer.push(9) == .pushed)
        consumer.join()
        #expect(got.load(ordering: .acquiring) == 7)
        // Short of a batch, the deadline still hands over what there is.
        #expect(buffer.pop(blocking: true, deadline: MonotonicClock.now() + 0.01, batch: 8) == 8)
    }

    @Test func fullPushIsReleasedOnlyWhenTheCountFallsToHalf() {
        let buffer = RingBuffer<Int>(capacity: 8)
        for value in 0..<8 { #expect(buffer.push(value) == .pushed) }
        let (producer, pushed) = pushOnAnotherThread(8, into: buffer)
        MonotonicClock.sleep(until: MonotonicClock.now() + 0.05)  // let the producer block
        #expect(!pushed.isSet)
        for expected in 0..<3 {
            #expect(buffer.pop(blocking: false) == expected)
            MonotonicClock.sleep(until: MonotonicClock.now() + 0.03)
            #expect(!pushed.isSet, "released with \(buffer.count) queued, above half")
        }
        #expect(buffer.pop(blocking: false) == 3)  // four left: half
        #expect(eventually { pushed.isSet })
        producer.join()
        #expect(buffer.count == 5)
        var rest: [Int] = []
        while let value = buffer.pop(blocking: false) { rest.append(value) }
        #expect(rest == [4, 5, 6, 7, 8])
    }

    @Test func insertOrderedScansBackFromTheTail() {
        let buffer = RingBuffer<Double>(capacity: 8)
        for value in [0.0, 0.12, 0.04, 0.08, 0.2, 0.16, 0.16] {
            #expect(buffer.insert(value, orderedBy: { $0 }) == .pushed)
        }
        var popped: [Double] = []
        while let value = buffer.pop(blocking: false) { popped.append(value) }
        #expect(popped == [0.0, 0.04, 0.08, 0.12, 0.16, 0.16, 0.2])
    }

    @Test func flushEmptiesReleasesEachAndWakesABlockedProducer() {
        let buffer = RingBuffer<Int>(capacity: 4)
        for value in 0..<4 { _ = buffer.push(value) }
        let (producer, pushed) = pushOnAnotherThread(99, into: buffer)
        MonotonicClock.sleep(until: MonotonicClock.now() + 0.03)
        #expect(!pushed.isSet)
        var released: [Int] = []
        buffer.flush { released.append($0) }
        #expect(released.sorted() == [0, 1, 2, 3])
        #expect(eventually { pushed.isSet })
        producer.join()
        #expect(buffer.pop(blocking: false) == 99)
    }

    @Test("flush(where:) releases only the stale elements, wherever they stand, keeps the rest in order across the wrap, and wakes a blocked producer")
    func flushOfTheStaleKeepsTheRestInOrder() {
        let buffer = RingBuffer<Int>(capacity: 8)
        for value in 0..<6 { _ = buffer.push(value) }
        for _ in 0..<5 { _ = buffer.pop(blocking: false) }  // the next pushes wrap round
        for value in [10, 1, 11, 2, 12, 13, 3] { _ = buffer.push(value) }  // full: 5 and these
        let (producer, pushed) = pushOnAnotherThread(14, into: buffer)
        MonotonicClock.sleep(until: MonotonicClock.now() + 0.03)
        #expect(!pushed.isSet)
        var released: [Int] = []
        buffer.flush(where: { $0 < 10 }) { released.append($0) }
        #expect(released == [5, 1, 2, 3])
        #expect(eventually { pushed.isSet })
        producer.join()
        var popped: [Int] = []
        while let value = buffer.pop(blocking: false) { popped.append(value) }
        #expect(popped == [10, 11, 12, 13, 14])
    }

    @Test func closeEndsEveryWait() {
        let buffer = RingBuffer<Int>(capacity: 2)
        let popResult = Atomic<Int>(0)
        let consumer = JoinableThread(name: "test-pop") { popResult.store(buffer.pop(blocking: true) == nil ? 1 : 2, ordering: .releasing) }
        let full = RingBuffer<Int>(capacity: 2)
        _ = full.push(1)
        _ = full.push(2)
        let pushResult = Atomic<Int>(0)
        let producer = JoinableThread(name: "test-push") { pushResult.store(full.push(3) == .closed ? 1 : 2, ordering: .releasing) }
        MonotonicClock.sleep(until: MonotonicClock.now() + 0.03)
        buffer.close()
        full.close()
        consumer.join()
        producer.join()
        #expect(popResult.load(ordering: .acquiring) == 1)
        #expect(pushResult.load(ordering: .acquiring) == 1)
        #expect(buffer.push(5) == .closed)
    }

    @Test func aBlockedPushGivesUpAtItsDeadlineOrWhenWoken() {
        let buffer = RingBuffer<Int>(capacity: 2)
        _ = buffer.push(1)
        _ = buffer.push(2)
        #expect(buffer.push(3, deadline: MonotonicClock.now() + 0.02) == .interrupted)
        let result = Atomic<Int>(0)
        let producer = JoinableThread(name: "test-push") {
            result.store(buffer.push(3) == .interrupted ? 1 : 2, ordering: .releasing)
        }
        MonotonicClock.sleep(until: MonotonicClock.now() + 0.03)
        buffer.wakeProducer()
        producer.join()
        #expect(result.load(ordering: .acquiring) == 1)
        #expect(buffer.count == 2)
    }

    @Test func growingKeepsTheOrderAndReleasesABlockedProducer() {
        let buffer = RingBuffer<Int>(capacity: 4)
        _ = buffer.push(0)
        _ = buffer.pop(blocking: false)  // the counters no longer start at zero
        for value in 1...4 { _ = buffer.push(value) }
        let (producer, pushed) = pushOnAnotherThread(5, into: buffer)
        MonotonicClock.sleep(until: MonotonicClock.now() + 0.03)
        #expect(!pushed.isSet)
        buffer.grow()
        #expect(buffer.capacity == 8)
        #expect(eventually { pushed.isSet })
        producer.join()
        var popped: [Int] = []
        while let value = buffer.pop(blocking: false) { popped.append(value) }
        #expect(popped == [1, 2, 3, 4, 5])
    }

    @Test func blockingPopGivesUpAtItsDeadline() {
        let buffer = RingBuffer<Int>(capacity: 2)
        #expect(buffer.pop(blocking: true, deadline: MonotonicClock.now() + 0.02) == nil)
    }

    @Test func manyProducersAndConsumersLoseAndDuplicateNothing() {
        let buffer = RingBuffer<Int>(capacity: 16)
        let producers = 4, consumers = 4, perProducer = 20_000
        let results = Locked<[[Int]]>(Array(repeating: [], count: consumers))
        let consumerThreads = (0..<consumers).map { index in
            JoinableThread(name: "stress-pop") {
                var mine: [Int] = []
                while let value = buffer.pop(blocking: true) {
                    if value < 0 { break }
                    mine.append(value)
                }
                results.withLock { $0[index] = mine }
            }
        }
        let producerThreads = (0..<producers).map { producer in
            JoinableThread(name: "stress-push") {
                for sequence in 0..<perProducer { _ = buffer.push(producer * perProducer + sequence) }
            }
        }
        producerThreads.forEach { $0.join() }
        for _ in 0..<consumers { _ = buffer.push(-1) }
        consumerThreads.forEach { $0.join() }
        let all = results.withLock { $0 }
        #expect(all.flatMap { $0 }.sorted() == Array(0..<(producers * perProducer)))
        // Each consumer sees each producer's values in the order they were pushed.
        for seen in all {
            for producer in 0..<producers {
                let fromProducer = seen.filter { $0 / perProducer == producer }
                #expect(fromProducer == fromProducer.sorted())
            }
        }
    }

    /// Pushes `value` on a thread of its own, which stays blocked while the buffer is full;
    /// the flag is set once the push returns.
    private func pushOnAnotherThread(_ value: Int, into buffer: RingBuffer<Int>) -> (producer: JoinableThread, pushed: Flag) {
        let pushed = Flag()
        let producer = JoinableThread(name: "test-push") {
            _ = buffer.push(value)
            pushed.set()
        }
        return (producer, pushed)
    }
}
