import Glibc

/// Compares what the disk cache keeps of a URL with the server's bytes now, fragment by
/// fragment, each fetched as a range past the cache (`hplayer cache verify --origin`). A cache
/// whose files agree with its index can still hold bytes that are not the server's: a disk's
/// silent damage, or a file changed on the server without new validators.
package enum OriginCheck {
    package enum Outcome: Equatable, Sendable {
        case same
        /// The server now describes other content: another length, ETag or Last-Modified.
        case changed(String)
        /// The server's byte at this offset differs from the one kept.
        case differs(at: Int64)
        /// The server could not be asked, or a fragment not read: nothing is known.
        case unchecked(String)
    }

    package static func compare(_ entry: CacheEntry, fragments: [CachedFragment], options: NetworkOptions) -> Outcome {
        var options = options
        options.cache = nil
        let server = HTTPByteSource(url: entry.url, options: options)
        defer { server.close() }
        let fetched = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
        let kept = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
        defer {
            fetched.deallocate()
            kept.deallocate()
        }
        // The server's description first, from its first byte: a file that shrank would answer a
        // fragment's range past its new end with an error, not with its new length.
        do throws(MediaError) {
            try server.open(url: entry.url, at: 0, length: 1)
        } catch {
            return .unchecked(error.reason)
        }
        let described = CacheEntry(url: entry.url, response: server.info, at: 0)
        guard entry.hasSameContent(as: described) else { return .changed(Self.change(from: entry, to: described)) }
        for fragment in fragments.sorted(by: { $0.offset < $1.offset }) {
            let file = open(fragment.path, O_RDONLY | O_CLOEXEC)
            guard file >= 0 else { return .unchecked("\(fragment.path): \(String(cString: strerror(errno)))") }
            defer { close(file) }
            do throws(MediaError) {
                try server.open(url: entry.url, at: fragment.offset, length: fragment.length)
                let now = CacheEntry(url: entry.url, response: server.info, at: 0)
                guard entry.hasSameContent(as: now) else { return .changed(Self.change(from: entry, to: now)) }
                var position = fragment.offset
                while position < fragment.end {
                    let room = Int(min(Int64(fetched.count), fragment.end - position))
                    let count = try server.read(into: UnsafeMutableRawBufferPointer(rebasing: fetched[..<room]))
                    guard count > 0 else { return .changed("the server's file ends at byte \(position)") }
                    guard pread(file, kept.baseAddress, count, off_t(position - fragment.offset)) == count else {
                        return .unchecked("\(fragment.path): cut short")
                    }
                    if let first = (0..<count).first(where: { fetched[$0] != kept[$0] }) {
                        return .differs(at: position + Int64(first))
                    }
                    position += Int64(count)
                }
            } catch {
                return .unchecked(error.reason)
            }
        }
        return .same
    }

    /// What differs between what was kept and what the server says now, in a few words.
    private static func change(from kept: CacheEntry, to now: CacheEntry) -> String {
        func text<T>(_ value: T?) -> String { value.map { "\($0)" } ?? "none" }
        if kept.contentLength != now.contentLength { return "length \(text(kept.contentLength)), now \(text(now.contentLength))" }
        if kept.entityTag != now.entityTag { return "ETag \(text(kept.entityTag)), now \(text(now.entityTag))" }
        return "Last-Modified \(text(kept.lastModified)), now \(text(now.lastModified))"
    }
}
