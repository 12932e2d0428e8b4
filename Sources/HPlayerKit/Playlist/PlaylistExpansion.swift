import Glibc

/// What the command line's inputs stand for, as mpv reads them: a folder is its media files
/// (and its folders'), in natural order; a local playlist file (M3U, PLS, a .m3u8 that is not
/// HLS) is its entries; anything else, a URL or a file, is itself. An input that cannot be read
/// as what it is named is one problem, and the rest go on.
public enum PlaylistExpansion {
    /// The file names a folder's listing takes: what FFmpeg plays, by extension.
    static let mediaExtensions: Set<String> = [
        "3g2", "3gp", "264", "265", "aac", "ac3", "aif", "aiff", "ape", "asf", "avi", "divx", "dts", "f4v", "flac", "flv",
        "h264", "h265", "hevc", "m1v", "m2t", "m2ts", "m2v", "m4a", "m4v", "mka", "mkv", "mov", "mp2", "mp3", "mp4", "mpeg",
        "mpg", "mts", "mxf", "oga", "ogg", "ogm", "ogv", "opus", "rm", "rmvb", "spx", "ts", "vob", "wav", "weba", "webm",
        "wma", "wmv", "wv", "y4m",
    ]
    /// Playlists naming playlists: followed this deep, no further (one naming itself ends there).
    static let maximumDepth = 4

    /// What an expansion has gathered, and the folders it has listed (by device and inode: a
    /// folder reached again through a link is not listed twice, and a link to a folder above it
    /// does not loop).
    private struct Expansion {
        var entries: [String] = []
        var problems: [MediaError] = []
        var listed: Set<[UInt64]> = []
    }

    /// The entries `inputs` stand for, and a problem for each that could not be read.
    public static func expand(_ inputs: [String]) -> (entries: [String], problems: [MediaError]) {
        var expansion = Expansion()
        for input in inputs { expand(input, depth: 0, into: &expansion) }
        return (expansion.entries, expansion.problems)
    }

    /// The entries of a playlist file given as such (mpv's --playlist): any format, by content.
    public static func entries(ofPlaylist path: String) throws(MediaError) -> [String] {
        let text = try readText(path)
        let format = PlaylistFile.format(name: path, text: text) ?? .lines
        var expansion = Expansion()
        for entry in PlaylistFile.entries(text, format: format, folder: folder(of: path)) {
            expand(entry, depth: 1, into: &expansion)
        }
        if let problem = expansion.problems.first { throw problem }
        return expansion.entries
    }

    private static func expand(_ input: String, depth: Int, into expansion: inout Expansion) {
        var status = stat()
        guard !input.contains("://"), stat(input, &status) == 0 else {
            expansion.entries.append(input)  // a URL, or a path that fails with its own error when played
            return
        }
        if status.st_mode & S_IFMT == S_IFDIR {
            guard expansion.listed.insert([UInt64(status.st_dev), UInt64(status.st_ino)]).inserted else { return }
            do {
                for name in try listing(input) { expand(name, depth: depth, into: &expansion) }
            } catch {
                expansion.problems.append(error)
            }
            return
        }
        let name = input.lowercased()
        guard depth < maximumDepth, name.hasSuffix(".m3u") || name.hasSuffix(".m3u8") || name.hasSuffix(".pls") else {
            expansion.entries.append(input)
            return
        }
        do {
            let text = try readText(input)
            guard let format = PlaylistFile.format(name: input, text: text) else {
                expansion.entries.append(input)  // HLS: media
                return
            }
            for entry in PlaylistFile.entries(text, format: format, folder: folder(of: input)) {
                expand(entry, depth: depth + 1, into: &expansion)
            }
        } catch {
            expansion.problems.append(error)
        }
    }

    /// A folder's media files and folders, as paths, in natural order; hidden ones left out.
    private static func listing(_ path: String) throws(MediaError) -> [String] {
        guard let directory = opendir(path) else { throw MediaError(input: path, reason: String(cString: strerror(errno))) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard !name.hasPrefix(".") else { continue }
            let full = path.hasSuffix("/") ? path + name : path + "/" + name
            var status = stat()
            guard stat(full, &status) == 0 else { continue }
            let isFolder = status.st_mode & S_IFMT == S_IFDIR
            let fileExtension = name.split(separator: ".").count > 1 ? name.split(separator: ".").last!.lowercased() : ""
            if isFolder || mediaExtensions.contains(fileExtension) { names.append(name) }
        }
        return names.sorted(by: NaturalOrder.precedes).map { path.hasSuffix("/") ? path + $0 : path + "/" + $0 }
    }

    private static func readText(_ path: String) throws(MediaError) -> String {
        String(decoding: try WholeFile.read(path, limit: 16 << 20), as: UTF8.self)
    }

    private static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return path[..<slash].isEmpty ? "/" : String(path[..<slash])
    }
}
