import Glibc
import HPlayerKit

/// A track's embedded cover, written to a file of this process's for `mpris:artUrl` (clients take
/// a URL, not bytes): one file at a time, under a new name per track (so a client's cache of the
/// last one is not shown for this one), removed when the track changes and when MPRIS closes.
final class CoverFile {
    private let folder: String
    private var written: String?
    private var count = 0

    /// In `$XDG_RUNTIME_DIR` (the user's own, cleared at logout), else /tmp.
    init(environment: [String: String]) {
        let runtime = environment["XDG_RUNTIME_DIR"] ?? ""
        folder = !runtime.isEmpty && access(runtime, W_OK) == 0 ? runtime : "/tmp"
    }

    /// The file:// URL of the cover embedded in the local file at `path`, written now; nil
    /// when it has none (CoverArt reads regular local files only).
    func url(forTrackAt path: String) -> String? {
        remove()
        let image: (bytes: [UInt8], fileExtension: String)?
        do {
            image = try CoverArt.imageFile(of: path)
        } catch {
            MPRISServer.log.debug("\(error.input): \(error.reason)")
            return nil
        }
        guard let image else { return nil }
        count += 1
        let file = "\(folder)/hplayer-\(getpid())-cover-\(count).\(image.fileExtension)"
        do {
            try WholeFile.write(image.bytes, to: file)
        } catch {
            MPRISServer.log.debug("no cover file for MPRIS: \(error.input): \(error.reason)")
            return nil
        }
        written = file
        return FileURL.url(of: file, workingDirectory: "/")
    }

    func remove() {
        if let written { unlink(written) }
        written = nil
    }
}
