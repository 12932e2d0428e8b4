import Dispatch
import HPlayerKit

/// The `s` key: writes the frame on screen to a PNG in the screenshot folder, off the window's
/// and the terminal's threads (the file is opened again and decoded to that frame), and says how
/// it went on the terminal and in the window, as mpv does.
struct ScreenshotTaker: Sendable {
    /// "" for the current folder (`--screenshot-dir`).
    let folder: String
    /// The video track playing (`--vid`), so the picture is the one on screen.
    let videoTrack: Int?
    /// How the playing file is fetched, when it is a URL.
    let network: NetworkOptions

    /// `subtitle`: what showed over the frame, drawn on it.
    func take(url: String, mediaPts: Double?, subtitle: ShownSubtitle?, notify: @escaping @Sendable (String) -> Void) {
        guard let mediaPts else {
            notify("No picture to take yet")
            return
        }
        DispatchQueue.global().async {
            do throws(MediaError) {
                let path = try Snapshot.save(url: url, mediaPts: mediaPts, folder: folder, videoTrack: videoTrack,
                                             network: network, subtitle: subtitle)
                StatusLine.notice("screenshot: \(path)")
                notify("Screenshot: '\(path)'")
            } catch {
                StatusLine.notice("error: \(error.input): \(error.reason)")
                notify("Screenshot failed: \(error.reason)")
            }
        }
    }
}
