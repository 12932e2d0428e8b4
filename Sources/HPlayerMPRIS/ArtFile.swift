import HPlayerKit

/// The picture beside a local file that players show for its album (mpv-mpris looks for the same
/// names): the first of them that exists, as a file:// URL.
enum ArtFile {
    static let names = ["cover", "Cover", "folder", "Folder", "front", "Front", "AlbumArt", "albumart"]
    static let extensions = ["jpg", "jpeg", "png", "webp"]

    /// `url`: the track's xesam:url; nil for a network URL or a folder with none of the names.
    static func url(besideTrack url: String, exists: (String) -> Bool) -> String? {
        guard url.hasPrefix("file://"), let slash = url.lastIndex(of: "/") else { return nil }
        let folderURL = url[..<slash]
        let folder = FileURL.path(ofURI: String(folderURL))
        for name in names {
            for fileExtension in extensions where exists("\(folder)/\(name).\(fileExtension)") {
                return "\(folderURL)/\(name).\(fileExtension)"
            }
        }
        return nil
    }
}
