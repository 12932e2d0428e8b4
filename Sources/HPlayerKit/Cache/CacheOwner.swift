import Glibc

/// A process's mark in the cache folder, that its range claims name: a file under DIR/owners
/// that it holds locked (flock) while it lives. The kernel drops the lock when the process ends,
/// kill -9 included, so a claim whose owner's file can be locked by another is stale.
final class CacheOwner: Sendable {
    let name: String
    private let path: String
    private let descriptor: Int32

    /// Creates and locks a file of a new name in `folder`, creating the folder if need be.
    init(folder: String) throws(MediaError) {
        guard mkdir(folder, CachePermissions.folderMode) == 0 || errno == EEXIST else {
            throw MediaError(input: folder, reason: String(cString: strerror(errno)))
        }
        while true {
            let name = "\(getpid())-" + String(UInt64.random(in: .min ... .max), radix: 16)
            let path = folder + "/" + name + ".lock"
            let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, CachePermissions.fileMode)
            guard descriptor >= 0 else {
                if errno == EEXIST { continue }
                throw MediaError(input: path, reason: String(cString: strerror(errno)))
            }
            guard flock(descriptor, LOCK_EX) == 0 else {
                let error = MediaError(input: path, reason: String(cString: strerror(errno)))
                unlink(path)
                close(descriptor)
                throw error
            }
            self.name = name
            self.path = path
            self.descriptor = descriptor
            return
        }
    }

    deinit {
        unlink(path)
        close(descriptor)
    }

    /// Whether `name` is an owner's lock file: "PID-HEX.lock".
    static func isFileName(_ name: String) -> Bool {
        let parts = name.split(separator: "-")
        return name.hasSuffix(".lock") && parts.count == 2 && UInt32(parts[0]) != nil
            && UInt64(parts[1].dropLast(5), radix: 16) != nil
    }

    /// Whether the owner `name` still holds its file. One found dead has its file removed.
    /// (No claim names an owner before its file is locked, so an unlocked file is a dead one.)
    static func isAlive(_ name: String, in folder: String) -> Bool {
        let path = folder + "/" + name + ".lock"
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return true }
        unlink(path)
        return false
    }
}
