/// A value behind a pthread lock. (Swift's Mutex waits on a futex directly, which
/// ThreadSanitizer cannot see: it would report false races around it.)
package final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = ConditionLock()

    package init(_ value: Value) {
        self.value = value
    }

    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try lock.withLock { () throws(Failure) -> Result in try body(&value) }
    }
}
