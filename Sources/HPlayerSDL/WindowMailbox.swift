import HPlayerKit

/// What other threads ask of the window thread, and the handshake that makes `pause` wait until
/// no refresh is under way (so the player can reset its clock right after).
final class WindowMailbox: @unchecked Sendable {
    struct Requests {
        /// A video to show: opened by the video output, taken once by the window thread.
        var video: (renderer: VideoRendering, format: VideoFormat)?
        var isRunning = false
        var isRefreshRequested = false
        var notices: [String] = []
        var title: String?
        /// The chapters' starts, to mark on the progress bar (each file's).
        var chapterMarks: [Double]?
        /// What the window shows of a file that plays no video: its cover, or nothing.
        var stillPicture: StillPicture?
        var togglesFullscreen = false
        var isClosing = false
    }

    private let lock = ConditionLock()
    private var requests = Requests()
    private var renderer: VideoRendering?
    private var isRefreshing = false
    private let wake: @Sendable () -> Void

    /// - Parameter wake: rouses the window thread from its wait for events.
    init(wake: @escaping @Sendable () -> Void) {
        self.wake = wake
    }

    func post(_ change: (inout Requests) -> Void) {
        lock.withLock { change(&requests) }
        wake()
    }

    /// Stops refreshes and returns once none is running.
    func pause() {
        lock.withLock {
            requests.isRunning = false
            while isRefreshing { lock.wait() }
        }
        wake()
    }

    /// The window thread takes what was asked since it last looked (the one-off parts once).
    func take() -> Requests {
        lock.withLock {
            let taken = requests
            requests.video = nil
            requests.title = nil
            requests.chapterMarks = nil
            requests.stillPicture = nil
            requests.togglesFullscreen = false
            requests.notices.removeAll(keepingCapacity: true)
            if let video = taken.video { renderer = video.renderer }
            return taken
        }
    }

    /// The subtitle over the picture of media time `pts`, from the renderer attached.
    func subtitle(atMediaPts pts: Double) -> ShownSubtitle? {
        lock.withLock { renderer }?.subtitle(atMediaPts: pts)
    }

    /// The renderer to refresh from, when a refresh is due now (running, or asked once); the
    /// caller must call `endRefresh` after.
    func beginRefresh() -> VideoRendering? {
        lock.withLock {
            guard let renderer, requests.isRunning || requests.isRefreshRequested else { return nil }
            requests.isRefreshRequested = false
            isRefreshing = true
            return renderer
        }
    }

    /// - Parameter again: refresh once more at the next turn, though paused (a step or preview
    ///   still waiting for its picture).
    func endRefresh(again: Bool = false) {
        lock.withLock {
            isRefreshing = false
            if again { requests.isRefreshRequested = true }
            lock.broadcast()
        }
    }

    /// The video is gone (the player closed its output).
    func detach() {
        lock.withLock {
            while isRefreshing { lock.wait() }
            renderer = nil
            requests.isRunning = false
            requests.video = nil
        }
        wake()
    }
}
