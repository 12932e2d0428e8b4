/// Reusable wrappers (packets, frames) so steady playback allocates nothing per frame.
///
/// `acquire` hands out a free object or makes a new one; `release` takes it back. `createdCount`
/// is the number ever made: it stays flat once the queues have filled, which the tests check.
package final class ObjectPool<Object: AnyObject>: @unchecked Sendable {
    private var free: [Object] = []
    private var created = 0
    private let make: () -> Object
    private let lock = ConditionLock()

    package init(reserve: Int, make: @escaping () -> Object) {
        self.make = make
        free.reserveCapacity(reserve)
    }

    package var createdCount: Int { lock.withLock { created } }

    package func acquire() -> Object {
        let reused: Object? = lock.withLock {
            if let object = free.popLast() { return object }
            created += 1
            return nil
        }
        return reused ?? make()
    }

    /// Takes back an object its owner has already reset.
    package func release(_ object: Object) {
        lock.withLock { free.append(object) }
    }
}
