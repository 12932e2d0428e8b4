import HPlayerKit
import Synchronization

/// Polls `condition` for up to `timeout` seconds, blocking the thread; true when it came.
public func eventually(timeout: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = MonotonicClock.now() + timeout
    while MonotonicClock.now() < deadline {
        if condition() { return true }
        MonotonicClock.sleep(until: MonotonicClock.now() + 0.002)
    }
    return condition()
}

/// Polls `condition` for up to `timeout` seconds from a task; true when it came.
public func until(timeout: Double = 10, _ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = MonotonicClock.now() + timeout
    while MonotonicClock.now() < deadline {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 5_000_000)
    }
    return condition()
}

/// A flag one thread sets and another watches.
public final class Flag: Sendable {
    private let value = Atomic<Bool>(false)

    public init() {}

    public var isSet: Bool { value.load(ordering: .acquiring) }
    public func set() { value.store(true, ordering: .releasing) }
}
