import Glibc

/// The disk cache's data folder: one file per fragment, named `<id>.frag`, written first as
/// `<id>.tmp`.
///
/// A writer holds an exclusive flock on its temporary file until it has been renamed, so a
/// reconcile (by this process or another sharing the folder) deletes only temporary files whose
/// writer is gone: a lock dies with its process.
struct FragmentDirectory: Sendable {
    let path: String

    /// Whether `name` is a fragment file's: an id of 16 hex digits and `.frag`. Names read from
    /// the index are checked, so a damaged row never points outside the folder.
    static func isFragmentName(_ name: String) -> Bool {
        let utf8 = name.utf8
        return utf8.count == 21 && name.hasSuffix(".frag") && utf8.prefix(16).allSatisfy {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
        }
    }

    static func fragmentName(_ id: String) -> String { id + ".frag" }

    /// Whether `name` is one this folder's writes make: a fragment, or its temporary name.
    static func isFileName(_ name: String) -> Bool {
        isFragmentName(name) || (name.hasSuffix(".tmp") && isFragmentName(name.dropLast(4) + ".frag"))
    }

    func path(of name: String) -> String { path + "/" + name }

    /// Creates the folder where there is none.
    func create() throws(MediaError) {
        guard mkdir(path, CachePermissions.folderMode) == 0 || errno == EEXIST else { throw Self.lastError(path) }
    }

    /// Writes `bytes` to a new temporary file and syncs it. Returns the file's id and its open
    /// descriptor, which holds the file's lock: the caller closes it once the file is renamed or
    /// discarded.
    func writeTemporary(_ bytes: UnsafeRawBufferPointer) throws(MediaError) -> (id: String, descriptor: Int32) {
        let (id, descriptor) = try createLockedTemporary()
        let temporary = path(of: id + ".tmp")
        do throws(MediaError) {
            try Self.writeAll(bytes, to: descriptor, path: temporary)
            guard fsync(descriptor) == 0 else { throw Self.lastError(temporary) }
        } catch {
            unlink(temporary)
            close(descriptor)
            throw error
        }
        return (id, descriptor)
    }

    /// Gives the temporary file `id` its fragment name, and syncs the folder so the name
    /// survives a crash before the index row that will name it.
    func publish(_ id: String) throws(MediaError) {
        let temporary = path(of: id + ".tmp")
        guard rename(temporary, path(of: Self.fragmentName(id))) == 0 else { throw Self.lastError(temporary) }
        let folder = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw Self.lastError(path) }
        defer { close(folder) }
        guard fsync(folder) == 0 else { throw Self.lastError(path) }
    }

    /// Deletes the file `id`, under either name: a write that failed.
    func discard(_ id: String) {
        unlink(path(of: id + ".tmp"))
        unlink(path(of: Self.fragmentName(id)))
    }

    /// Deletes the files named; one already gone is no matter.
    func remove(_ names: [String]) {
        for name in names {
            unlink(path(of: name))
        }
    }

    /// The regular files in the folder, with their sizes.
    func list() throws(MediaError) -> [String: Int64] {
        guard let folder = opendir(path) else { throw Self.lastError(path) }
        defer { closedir(folder) }
        var sizes: [String: Int64] = [:]
        while let item = readdir(folder) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            var info = stat()
            guard lstat(path(of: name), &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            sizes[name] = Int64(info.st_size)
        }
        return sizes
    }

    /// Whether the temporary file `name` is left by a write that will never finish: no writer
    /// holds its lock. With `removing`, deletes it while holding the lock, so a writer that
    /// created it an instant ago, and locks it only now, sees it gone and starts over.
    func isAbandonedTemporary(_ name: String, removing: Bool) -> Bool {
        let descriptor = open(path(of: name), O_RDONLY | O_CLOEXEC)
        // Gone meanwhile: renamed by its writer, or removed.
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return false }
        if removing { unlink(path(of: name)) }
        return true
    }

    /// Deletes every file but the temporary ones still being written.
    func removeAll() throws(MediaError) {
        for name in try list().keys {
            if name.hasSuffix(".tmp") {
                _ = isAbandonedTemporary(name, removing: true)
            } else {
                unlink(path(of: name))
            }
        }
    }

    private func createLockedTemporary() throws(MediaError) -> (id: String, descriptor: Int32) {
        while true {
            // 64 random bits: a name another fragment already has is as likely as a disk error.
            let random = String(UInt64.random(in: .min ... .max), radix: 16)
            let id = String(repeating: "0", count: 16 - random.count) + random
            let temporary = path(of: id + ".tmp")
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, CachePermissions.fileMode)
            guard descriptor >= 0 else {
                if errno == EEXIST { continue }
                throw Self.lastError(temporary)
            }
            guard flock(descriptor, LOCK_EX) == 0 else {
                let error = Self.lastError(temporary)
                unlink(temporary)
                close(descriptor)
                throw error
            }
            // A reconcile may have found the file unlocked, between open and flock, and deleted it.
            var info = stat()
            if fstat(descriptor, &info) == 0, info.st_nlink > 0 { return (id, descriptor) }
            close(descriptor)
        }
    }

    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, path: String) throws(MediaError) {
        guard let base = bytes.baseAddress else { return }
        var written = 0
        while written < bytes.count {
            // Past a file size limit (ulimit -f), with SIGXFSZ ignored, this fails with EFBIG.
            let count = write(descriptor, base + written, bytes.count - written)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw lastError(path) }
            written += count
        }
    }

    /// errno as a user is told it, about `path`.
    private static func lastError(_ path: String) -> MediaError {
        MediaError(input: path, reason: String(cString: strerror(errno)))
    }
}
