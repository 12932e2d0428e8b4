/// The one bounded queue of the pipeline: packet queues (read loop → decode loop) and frame queues
/// (decode loop → render) are both this type.
///
/// Power-of-two capacity with masked indices and wrapping counters, one lock and one condition
/// variable. A producer that finds it full sleeps until the count falls to half, so it wakes once
/// per half-buffer rather than once per element. A consumer either sleeps until something arrives
/// (a decode thread) or gets nothing at once (a render callback never waits). `flush` empties it and
/// wakes every waiter; `close` makes every current and later wait return.
package final class RingBuffer<Element>: @unchecked Sendable {
    package enum PushResult: Equatable {
        case pushed
        /// The deadline passed or `wakeProducer()` was called before room came.
        case interrupted
        /// The buffer is closed; the element was not taken.
        case closed
    }

    private var slotCount: Int
    private var mask: UInt
    private var storage: UnsafeMutablePointer<Element?>
    private var readCounter: UInt = 0
    private var writeCounter: UInt = 0
    private var waitingProducers = 0
    private var waitingConsumers = 0
    /// How many elements a waiting consumer wants before it is woken.
    private var consumerWakeCount = 1
    private var producerWakeRequested = false
    private var consumerWakeRequested = false
    private var closed = false
    private let lock = ConditionLock()

    /// - Parameter capacity: rounded up to a power of two, at least 2.
    package init(capacity: Int) {
        var size = 2
        while size < capacity { size <<= 1 }
        slotCount = size
        mask = UInt(size - 1)
        storage = .allocate(capacity: size)
        storage.initialize(repeating: nil, count: size)
    }

    deinit {
        storage.deinitialize(count: slotCount)
        storage.deallocate()
    }

    package var count: Int { lock.withLock { Int(writeCounter &- readCounter) } }
    package var capacity: Int { lock.withLock { slotCount } }

    /// Doubles the capacity, keeping the queued elements in order, and wakes a blocked producer.
    /// For the read loop only, when a badly interleaved file would otherwise starve another
    /// stream: it allocates, so it is never part of steady playback.
    package func grow() {
        lock.withLock {
            let newCapacity = slotCount * 2
            let newStorage = UnsafeMutablePointer<Element?>.allocate(capacity: newCapacity)
            newStorage.initialize(repeating: nil, count: newCapacity)
            let count = Int(writeCounter &- readCounter)
            for index in 0..<count {
                newStorage[index] = storage[Int((readCounter &+ UInt(index)) & mask)].take()
            }
            storage.deinitialize(count: slotCount)
            storage.deallocate()
            storage = newStorage
            slotCount = newCapacity
            mask = UInt(newCapacity - 1)
            readCounter = 0
            writeCounter = UInt(count)
            lock.broadcast()
        }
    }
    package var isClosed: Bool { lock.withLock { closed } }

    /// Appends `element`, sleeping while the buffer is full until it has drained to half.
    /// - Parameter deadline: monotonic seconds after which a blocked push gives up with `.interrupted`.
    package func push(_ element: Element, deadline: Double? = nil) -> PushResult {
        insert(element, deadline: deadline) { _ in false }
    }

    /// Inserts `element` after every element whose key is not greater than its own, scanning back
    /// from the tail: frames decoded out of order still leave in presentation order.
    package func insert(_ element: Element, orderedBy key: (Element) -> Double, deadline: Double? = nil) -> PushResult {
        let elementKey = key(element)
        return insert(element, deadline: deadline) { key($0) > elementKey }
    }

    private func insert(_ element: Element, deadline: Double?, goesBefore: (Element) -> Bool) -> PushResult {
        lock.lock()
        defer { lock.unlock() }
        if !closed, Int(writeCounter &- readCounter) == slotCount {
            waitingProducers += 1
            while !closed, !producerWakeRequested, Int(writeCounter &- readCounter) > slotCount / 2 {
                if let deadline {
                    if !lock.wait(until: deadline) { break }
                } else {
                    lock.wait()
                }
            }
            waitingProducers -= 1
            if producerWakeRequested {
                producerWakeRequested = false
                return .interrupted
            }
        }
        if closed { return .closed }
        if Int(writeCounter &- readCounter) == slotCount { return .interrupted }
        var index = writeCounter
        while index != readCounter, goesBefore(storage[Int((index &- 1) & mask)]!) {
            storage[Int(index & mask)] = storage[Int((index &- 1) & mask)]
            index &-= 1
        }
        storage[Int(index & mask)] = element
        writeCounter &+= 1
        if waitingConsumers > 0, Int(writeCounter &- readCounter) >= consumerWakeCount { lock.broadcast() }
        return .pushed
    }

    /// Removes the oldest element. With `blocking`, an empty buffer is waited on until it holds
    /// `batch` elements (a consumer that takes them all in turn then wakes once per batch, not once
    /// per element), closes, or `deadline` (monotonic seconds) passes; without, returns nil at once
    /// when empty.
    package func pop(blocking: Bool, deadline: Double? = nil, batch: Int = 1) -> Element? {
        lock.lock()
        defer { lock.unlock() }
        if blocking, !closed, writeCounter == readCounter {
            let wanted = min(max(1, batch), slotCount)
            waitingConsumers += 1
            consumerWakeCount = wanted
            while !closed, !consumerWakeRequested, Int(writeCounter &- readCounter) < wanted {
                let woken = deadline.map { lock.wait(until: $0) } ?? { lock.wait(); return true }()
                if !woken { break }
            }
            waitingConsumers -= 1
            consumerWakeCount = 1
        }
        if closed || writeCounter == readCounter {
            if blocking { consumerWakeRequested = false }  // the wake is delivered: nil
            return nil
        }
        return removeFirstLocked()
    }

    /// Runs `body` with the buffer locked, to look at the queued elements and remove from the front
    /// in one step (the video renderer picks a frame and drops the ones it skips this way).
    package func withContents<Result>(_ body: (inout Contents) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        var contents = Contents(buffer: self)
        return body(&contents)
    }

    /// Empties the buffer, handing each element to `release`, and wakes every waiter.
    package func flush(_ release: (Element) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        while writeCounter != readCounter {
            release(removeFirstLocked())
        }
        lock.broadcast()
    }

    /// Removes the elements `isStale` picks, wherever they stand, keeping the others in order, and
    /// wakes every waiter: a seek's caller empties the queues of what came before it without
    /// touching what the read thread, having seen the seek already, has queued since.
    package func flush(where isStale: (Element) -> Bool, _ release: (Element) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        var kept = readCounter
        var index = readCounter
        while index != writeCounter {
            let element = storage[Int(index & mask)].take()!
            if isStale(element) {
                release(element)
            } else {
                storage[Int(kept & mask)] = element
                kept &+= 1
            }
            index &+= 1
        }
        writeCounter = kept
        lock.broadcast()
    }

    /// Makes a producer blocked on a full buffer (or the next one to block) return `.interrupted`,
    /// so the read loop can attend to a seek, a close or a buffering decision.
    package func wakeProducer() {
        lock.withLock {
            producerWakeRequested = true
            lock.broadcast()
        }
    }

    /// Makes a consumer blocked on an empty buffer (or the next one to block) return what it
    /// holds, nil when nothing: so it can look at something other than the buffer (a track's
    /// decoder has finished).
    package func wakeConsumer() {
        lock.withLock {
            consumerWakeRequested = true
            lock.broadcast()
        }
    }

    /// Ends all waiting for good: blocked and later pushes return `.closed`, pops return nil.
    package func close() {
        lock.withLock {
            closed = true
            lock.broadcast()
        }
    }

    private func removeFirstLocked() -> Element {
        let slot = Int(readCounter & mask)
        let element = storage[slot].take()!
        readCounter &+= 1
        if waitingProducers > 0, Int(writeCounter &- readCounter) <= slotCount / 2 {
            lock.broadcast()
        }
        return element
    }

    /// The queued elements, oldest first, seen while the buffer is locked.
    package struct Contents: RandomAccessCollection {
        fileprivate unowned(unsafe) let buffer: RingBuffer

        package var startIndex: Int { 0 }
        package var endIndex: Int { Int(buffer.writeCounter &- buffer.readCounter) }

        package subscript(position: Int) -> Element {
            buffer.storage[Int((buffer.readCounter &+ UInt(position)) & buffer.mask)]!
        }

        package mutating func removeFirst() -> Element {
            precondition(!isEmpty, "removeFirst on an empty ring buffer")
            return buffer.removeFirstLocked()
        }

        /// Takes back the newest element (a producer reclaiming what it queued).
        package mutating func removeLast() -> Element {
            precondition(!isEmpty, "removeLast on an empty ring buffer")
            buffer.writeCounter &-= 1
            return buffer.storage[Int(buffer.writeCounter & buffer.mask)].take()!
        }
    }
}
