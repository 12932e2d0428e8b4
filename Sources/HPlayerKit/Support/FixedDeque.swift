/// A queue of fixed capacity with no lock of its own and no allocation after it is made: for a
/// real-time thread's own use, or under its owner's lock. Push at the back, pop at either end.
final class FixedDeque<Element> {
    private let storage: UnsafeMutablePointer<Element?>
    private let slotCount: Int
    private var head = 0
    private(set) var count = 0

    init(capacity: Int) {
        slotCount = max(1, capacity)
        storage = .allocate(capacity: slotCount)
        storage.initialize(repeating: nil, count: slotCount)
    }

    deinit {
        storage.deinitialize(count: slotCount)
        storage.deallocate()
    }

    var capacity: Int { slotCount }
    var isEmpty: Bool { count == 0 }
    var isFull: Bool { count == slotCount }

    var first: Element? { count == 0 ? nil : storage[head] }

    /// The element `offset` places from the front.
    subscript(offset: Int) -> Element {
        precondition(offset >= 0 && offset < count, "FixedDeque index out of range")
        return storage[(head + offset) % slotCount]!
    }

    /// False (and `element` not taken) when full.
    @discardableResult
    func pushBack(_ element: Element) -> Bool {
        guard count < slotCount else { return false }
        storage[(head + count) % slotCount] = element
        count += 1
        return true
    }

    func popFront() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head].take()
        head = (head + 1) % slotCount
        count -= 1
        return element
    }

    func popBack() -> Element? {
        guard count > 0 else { return nil }
        count -= 1
        return storage[(head + count) % slotCount].take()
    }

    /// Moves elements from the front of `other` to the back of this one while there is room.
    func takeAll(from other: FixedDeque<Element>) {
        while !isFull, let element = other.popFront() { pushBack(element) }
    }
}
