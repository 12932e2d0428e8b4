import Glibc

/// The disk cache is private to the user, as the XDG base directory specification asks: it
/// holds what was watched, signed URLs with their tokens, and the media. Folders are made 0700
/// and files 0600 (modes a umask can only narrow); SQLite gives the index's -wal and -shm files
/// the index's own mode. A cache made before, or by hand, with wider modes is tightened: the
/// cache's folder and its own files alone, whatever else `--cache-dir` may hold.
enum CachePermissions {
    static let folderMode: mode_t = 0o700
    static let fileMode: mode_t = 0o600

    /// The files the cache keeps in its folder, besides `data` and `owners`.
    static let ownFiles = ["index.sqlite", "index.sqlite-wal", "index.sqlite-shm", "index.sqlite-journal", "keys"]

    /// Each of the cache's folders and files under `directory` (itself included) whose mode lets
    /// others in, as "PATH: mode 0755, made 0700" (or "should be" without `repair`); with
    /// `repair`, set private. Links and other kinds of file are left alone.
    static func check(_ directory: String, repair: Bool) -> [String] {
        var problems: [String] = []
        func visit(_ path: String, isFolder: Bool) {
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == (isFolder ? S_IFDIR : S_IFREG) else { return }
            let wanted = isFolder ? folderMode : fileMode
            let mode = info.st_mode & 0o7777
            guard mode & ~wanted != 0 else { return }
            let made = repair && fchmodat(AT_FDCWD, path, mode & wanted, AT_SYMLINK_NOFOLLOW) == 0
            problems.append("\(path): mode \(octal(mode)), \(made ? "made" : "should be") \(octal(mode & wanted))")
        }
        visit(directory, isFolder: true)
        for name in ownFiles { visit(directory + "/" + name, isFolder: false) }
        for (folder, isOwn) in [("data", FragmentDirectory.isFileName), ("owners", CacheOwner.isFileName)] {
            let path = directory + "/" + folder
            visit(path, isFolder: true)
            for name in names(in: path) where isOwn(name) { visit(path + "/" + name, isFolder: false) }
        }
        return problems
    }

    private static func names(in path: String) -> [String] {
        guard let folder = opendir(path) else { return [] }
        defer { closedir(folder) }
        var names: [String] = []
        while let item = readdir(folder) {
            names.append(withUnsafeBytes(of: item.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
        }
        return names
    }

    private static func octal(_ mode: mode_t) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
