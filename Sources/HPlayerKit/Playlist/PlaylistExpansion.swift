import Glibc

/// What the command line's inputs stand for, as mpv reads them: a folder is its media files
/// (and its folders'), in natural order; a local playlist file (M3U, PLS, a .m3u8 that is not
/// HLS) is its entries, as is an http(s) URL of an .m3u or .pls (fetched through the I/O layer;
/// a .m3u8 URL stays HLS, played by the HLS client); anything else, a URL or a file, is itself.
/// An input that cannot be read as what it is named is one problem, and the rest go on.
package enum PlaylistExpansion {
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
        /// How a remote playlist is fetched.
        var network: NetworkOptions
    }

    /// The entries `inputs` stand for, and a problem for each that could not be read.
    package static func expand(_ inputs: [String], network: NetworkOptions = NetworkOptions()) -> (entries: [String], problems: [MediaError]) {
        var expansion = Expansion(network: network)
        for input in inputs { expand(input, depth: 0, into: &expansion) }
        return (expansion.entries, expansion.problems)
    }

    /// The entries of a playlist file given as such (mpv's --playlist): any format, by content.
    package static func entries(ofPlaylist path: String, network: NetworkOptions = NetworkOptions()) throws(MediaError) -> [String] {
        let text = try readText(path, network: network)
        let format = PlaylistFile.format(name: path, text: text) ?? .lines
        var expansion = Expansion(network: network)
        for entry in PlaylistFile.entries(text, format: format, folder: folder(of: path)) where isAllowed(entry, namedBy: path, into: &expansion) {
            expand(entry, depth: 1, into: &expansion)
        }
        if let problem = expansion.problems.first { throw problem }
        return expansion.entries
    }

    /// Whether the playlist `document` may name `entry` (OriginPolicy: a page on the web naming
    /// files on this machine, or other protocols, is refused); a refusal is a problem.
    private static func isAllowed(_ entry: String, namedBy document: String, into expansion: inout Expansion) -> Bool {
        guard let reason = OriginPolicy.refusal(of: entry, namedBy: document) else { return true }
        expansion.problems.append(MediaError(input: document, reason: "refused \(entry): \(reason)"))
        return false
    }

    private static func expand(_ input: String, depth: Int, into expansion: inout Expansion) {
        let input = FileURL.path(ofURI: input)  // a desktop's file:// URL is its file
        if isRemote(input) {
            expandRemote(input, depth: depth, into: &expansion)
            return
        }
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

    /// An http(s) URL of an .m3u or .pls: its entries, relative ones placed against it.
    private static func expandRemote(_ url: String, depth: Int, into expansion: inout Expansion) {
        let path = url.prefix { $0 != "?" && $0 != "#" }.lowercased()
        guard depth < maximumDepth, path.hasSuffix(".m3u") || path.hasSuffix(".pls") else {
            expansion.entries.append(url)
            return
        }
        do {
            let text = try readText(url, network: expansion.network)
            guard let format = PlaylistFile.format(name: path, text: text) else {
                expansion.entries.append(url)
                return
            }
            for entry in PlaylistFile.entries(text, format: format, folder: folder(of: url)) where isAllowed(entry, namedBy: url, into: &expansion) {
                expand(entry, depth: depth + 1, into: &expansion)
            }
        } catch {
            expansion.problems.append(error)
        }
    }

    private static func isRemote(_ input: String) -> Bool { OriginPolicy.isRemote(input) }

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

    private static let textLimit = 16 << 20

    private static func readText(_ path: String, network: NetworkOptions = NetworkOptions()) throws(MediaError) -> String {
        guard isRemote(path) else { return String(decoding: try WholeFile.read(path, limit: textLimit), as: UTF8.self) }
        let http = network.httpResource(for: path)
        defer { http.close() }
        try http.open(url: path, at: 0, length: nil, isContinuation: false, caching: .bypass)
        return String(decoding: try http.readAll(limit: textLimit), as: UTF8.self)
    }

    /// Where a playlist's relative entries are placed: its folder, or for a URL the URL that "."
    /// names against it (its query left out).
    private static func folder(of path: String) -> String {
        if isRemote(path) { return HLSURL.resolve(".", against: path) }
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return path[..<slash].isEmpty ? "/" : String(path[..<slash])
    }
}
