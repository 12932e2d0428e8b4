/// A value behind a pthread lock. (Swift's Mutex waits on a futex directly, which
/// ThreadSanitizer cannot see: it would report false races around it.)
public final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = ConditionLock()

    public init(_ value: Value) {
        self.value = value
    }

    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&value) }
    }
}
