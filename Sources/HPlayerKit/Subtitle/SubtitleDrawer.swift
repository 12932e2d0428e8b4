/// libass on a thread of its own, so that a window's refresh thread does not draw subtitles: it
/// asks for the picture it shows now and for the next one, and takes what is drawn.
///
/// Three overlays turn between the two threads: the one the window holds (taken last), the one
/// drawn last, and the one being drawn. The drawing thread never writes the first two.
package final class SubtitleDrawer: @unchecked Sendable {
    /// What to draw: a subtitle, at a media time, over a picture of a size whose video is coded
    /// at `storage`.
    package struct Request: Equatable, Sendable {
        package var shown: ShownSubtitle?
        package var pts: Double
        package var size: PictureSize
        package var storage: PictureSize

        package init(shown: ShownSubtitle?, pts: Double, size: PictureSize, storage: PictureSize) {
            self.shown = shown
            self.pts = pts
            self.size = size
            self.storage = storage
        }
    }

    private struct State {
        var pending: Request?
        /// The request each overlay holds the drawing of, and its drawing's number.
        var drawn: [(request: Request?, version: Int)] = Array(repeating: (nil, 0), count: 3)
        var lastDrawn: Int?
        var held: Int?
        var nextVersion = 1
        var isClosing = false
    }

    private let overlays = (0..<3).map { _ in SubtitleOverlay(size: PictureSize(width: 0, height: 0)) }
    private let control = ConditionLock()
    private var state = State()
    private var thread: JoinableThread?
    /// How long `draw` waits for a drawing not made ahead.
    private static let longestWait = 0.1

    /// nil, with one warning, when libass cannot start.
    package init?() {
        // Made here, to say now when libass cannot start; then the drawing thread's alone.
        guard let made = SubtitleRenderer() else { return nil }
        nonisolated(unsafe) let renderer = made
        thread = JoinableThread(name: "hp-subtitles") { [self] in run(renderer) }
    }

    deinit { close() }

    /// Asks for `request` to be drawn ahead (the next picture's); a request not yet begun is
    /// replaced.
    package func prepare(_ request: Request) {
        control.withLock {
            guard state.pending != request, state.lastDrawn.map({ state.drawn[$0].request }) != request else { return }
            state.pending = request
            control.broadcast()
        }
    }

    /// The drawing of `request`, drawn ahead or now, waited for up to a tenth of a second; nil
    /// when it did not come in time. The overlay is the caller's to read until its next call,
    /// and its number tells whether it is the one taken before.
    package func draw(_ request: Request) -> (overlay: SubtitleOverlay, version: Int)? {
        control.withLock {
            let deadline = MonotonicClock.now() + Self.longestWait
            while !state.isClosing {
                if let index = state.lastDrawn, state.drawn[index].request == request {
                    state.held = index
                    return (overlays[index], state.drawn[index].version)
                }
                if state.pending != request {
                    state.pending = request
                    control.broadcast()
                }
                if MonotonicClock.now() >= deadline { return nil }
                _ = control.wait(until: deadline)
            }
            return nil
        }
    }

    /// Stops the thread and joins it.
    package func close() {
        let thread = control.withLock { () -> JoinableThread? in
            state.isClosing = true
            control.broadcast()
            defer { self.thread = nil }
            return self.thread
        }
        thread?.join()
    }

    private func run(_ renderer: SubtitleRenderer) {
        while true {
            let job = control.withLock { () -> (Request, Int)? in
                while state.pending == nil && !state.isClosing { control.wait() }
                guard !state.isClosing, let request = state.pending else { return nil }
                state.pending = nil
                // Neither the overlay the window holds nor the one it may take next.
                let free = (0..<3).first { $0 != state.held && $0 != state.lastDrawn } ?? 0
                return (request, free)
            }
            guard let (request, index) = job else { return }
            let overlay = overlays[index]
            overlay.resize(to: request.size)
            // What libass draws depends on what it drew last: the overlay drawn last, whatever
            // it is, is the one to show when nothing changed.
            let changed = renderer.draw(request.shown, atMediaPts: request.pts, into: overlay, storage: request.storage)
            control.withLock {
                if changed || state.lastDrawn == nil {
                    state.drawn[index] = (request, state.nextVersion)
                    state.nextVersion += 1
                    state.lastDrawn = index
                } else if let last = state.lastDrawn {
                    state.drawn[last].request = request
                }
                control.broadcast()
            }
        }
    }
}
