import Glibc

/// The disk cache is private to the user, as the XDG base directory specification asks: it
/// holds what was watched, signed URLs with their tokens, and the media. Folders are made 0700
/// and files 0600 (modes a umask can only narrow); SQLite gives the index's -wal and -shm files
/// the index's own mode. A cache made before, or by hand, with wider modes is tightened.
enum CachePermissions {
    static let folderMode: mode_t = 0o700
    static let fileMode: mode_t = 0o600

    /// Each folder and file under `directory` (itself included) whose mode lets others in, as
    /// "PATH: mode 0755, made 0700" (or "should be" without `repair`); with `repair`, set
    /// private. Links are not followed, and other kinds of file are left alone.
    static func check(_ directory: String, repair: Bool) -> [String] {
        var problems: [String] = []
        visit(directory, depth: 0, repair: repair, into: &problems)
        return problems
    }

    /// The cache is a folder of folders (data, owners) two levels deep at most: no deeper walk.
    private static let maximumDepth = 2

    private static func visit(_ path: String, depth: Int, repair: Bool, into problems: inout [String]) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFDIR || kind == S_IFREG else { return }
        let wanted = kind == S_IFDIR ? folderMode : fileMode
        let mode = info.st_mode & 0o7777
        if mode & ~wanted != 0 {
            let made = repair && chmod(path, mode & wanted) == 0
            problems.append("\(path): mode \(octal(mode)), \(made ? "made" : "should be") \(octal(mode & wanted))")
        }
        guard kind == S_IFDIR, depth < maximumDepth, let folder = opendir(path) else { return }
        defer { closedir(folder) }
        while let item = readdir(folder) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name != ".", name != ".." else { continue }
            visit(path + "/" + name, depth: depth + 1, repair: repair, into: &problems)
        }
    }

    private static func octal(_ mode: mode_t) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
