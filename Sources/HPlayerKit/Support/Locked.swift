/// A value behind a pthread lock. (Swift's Mutex waits on a futex directly, which
/// ThreadSanitizer cannot see: it would report false races around it.)
public final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = ConditionLock()

    public init(_ value: Value) {
        self.value = value
    }

    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try lock.withLock { () throws(Failure) -> Result in try body(&value) }
    }
}
