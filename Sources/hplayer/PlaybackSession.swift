import Dispatch
import HPlayerIPC
import HPlayerKit
import HPlayerSDL

/// What keys, clicks, signals and the IPC act on: the file playing now (the window is made first),
/// and why it ended.
final class PlaybackSession: Sendable {
    let watchLater: WatchLater
    private let savesPositionOnQuit: Bool
    private let screenshots: ScreenshotTaker
    private struct State {
        var controller: PlayerControlling?
        var url = ""
        var window: SDLWindow?
        var positionNotSaved: MediaError?
        /// The exit code of the signal that ended playback.
        var interruptedExitCode: Int32?
        var quitCode: Int32?
        var fileStopped = false
        /// The playlist's turn playing (or about to), and the latest turn a playlist command
        /// stopped: a turn up to that one is stopped, whether it plays already or not yet.
        var turn = 0
        var stoppedThrough = 0
        var playlist: Playlist?
        var runner: CommandRunner?
    }

    private let state = Locked(State())

    init(watchLater: WatchLater, savesPositionOnQuit: Bool, screenshots: ScreenshotTaker) {
        self.watchLater = watchLater
        self.savesPositionOnQuit = savesPositionOnQuit
        self.screenshots = screenshots
    }

    /// What the keys for the next and previous file act on.
    func use(_ playlist: Playlist) {
        state.withLock { $0.playlist = playlist }
    }

    /// What the keys for chapters act through.
    func use(_ runner: CommandRunner) {
        state.withLock { $0.runner = runner }
    }

    /// The file of the playlist's turn `turn` is about to play; one stopped already is stopped at once.
    func attach(controller: PlayerControlling, turn: Int, url: String, window: SDLWindow?) {
        let isStopped = state.withLock {
            $0.controller = controller
            $0.turn = turn
            $0.url = url
            $0.window = window
            // A quit that came since the playlist loop looked stops this one too.
            $0.fileStopped = turn <= $0.stoppedThrough || $0.quitCode != nil
            return $0.fileStopped
        }
        if isStopped { controller.player.close() }
    }

    /// No file plays (--idle waits): the status the window shows, and the keys, have none.
    func detachController() {
        state.withLock { $0.controller = nil }
    }

    @Sendable func handle(_ command: InputCommand) {
        let (controller, window) = state.withLock { ($0.controller, $0.window) }
        switch command {
        case .quitSavingPosition:
            rememberPosition()
            quit(0)
        case .quit:
            if savesPositionOnQuit { rememberPosition() }
            quit(0)
        case .screenshot(let withSubtitles):
            _ = screenshot(withSubtitles: withSubtitles)
        case .toggleFullscreen:
            _ = toggleFullscreen()
        case .playlistNext, .playlistPrevious:
            let moved = playlist?.apply(command == .playlistNext ? .next(force: false) : .previous(force: false)) ?? false
            if !moved { show(command == .playlistNext ? "No next file" : "No previous file", in: window) }
        case .chapterStep(let offset):
            let runner = state.withLock { $0.runner }
            if let notice = runner?.stepChapter(offset), !notice.isEmpty { show(notice, in: window) }
        case .player(let command):
            if let notice = controller?.perform(command) { show(notice, in: window) }
        }
    }

    /// A notice on the window, else on the terminal.
    private func show(_ notice: String, in window: SDLWindow?) {
        if let window { window.showNotice(notice) } else { StatusLine.show(notice) }
    }

    /// Remembers where the file playing stands, for `--resume`; a failure is told at exit.
    private func rememberPosition() {
        let (controller, url) = state.withLock { ($0.controller, $0.url) }
        guard let controller else { return }
        do {
            try watchLater.save(position: controller.player.status.position, for: url)
        } catch {
            state.withLock { $0.positionNotSaved = error }
        }
    }

    @Sendable func status() -> PlayerStatus? {
        state.withLock { $0.controller?.player.status }
    }

    /// Ends the file playing (its events end) and the playlist with it.
    @Sendable func quit(_ code: Int32) {
        let (controller, playlist) = state.withLock { state -> (PlayerControlling?, Playlist?) in
            state.quitCode = state.quitCode ?? code
            return (state.controller, state.playlist)
        }
        controller?.player.close()
        playlist?.wake()  // where --idle waits
    }

    /// A playlist command sent playback elsewhere while turn `turn` played: that file stops,
    /// after the command's reply, as mpv's (its end-file follows the reply). Decided under the
    /// lock, so a turn that the playlist loop starts at that moment is stopped by `attach` instead.
    @Sendable func stop(turn: Int) {
        let stopping = state.withLock { state -> PlayerControlling? in
            state.stoppedThrough = max(state.stoppedThrough, turn)
            guard state.turn <= turn, !state.fileStopped, let controller = state.controller else { return nil }
            state.fileStopped = true
            return controller
        }
        if let stopping { DispatchQueue.global().async { stopping.player.close() } }
    }

    func interrupt(exitCode: Int32) {
        state.withLock { $0.interruptedExitCode = $0.interruptedExitCode ?? exitCode }
        quit(exitCode)
    }

    var interruptedExitCode: Int32? { state.withLock { $0.interruptedExitCode } }
    var isQuitting: Bool { state.withLock { $0.quitCode != nil } }
    var quitCode: Int32? { state.withLock { $0.quitCode } }
    var wasFileStopped: Bool { state.withLock { $0.fileStopped } }
    var positionNotSaved: MediaError? { state.withLock { $0.positionNotSaved } }
}

/// What the IPC and input.conf's commands ask of the program: the playlist's, and the
/// session's own.
extension PlaybackSession: CommandFrontEnd {
    private var playlist: Playlist? { state.withLock { $0.playlist } }

    func load(_ url: String, mode: IPCCommand.LoadMode) -> Int { playlist?.load(url, mode: mode) ?? 0 }

    func loadList(_ path: String, mode: IPCCommand.LoadMode) -> (firstID: Int, count: Int)? { playlist?.loadList(path, mode: mode) }

    func apply(_ request: PlaylistRequest) -> Bool { playlist?.apply(request) ?? false }

    var view: PlaylistView { playlist?.view ?? PlaylistView() }

    /// mpv's quit and quit-watch-later: the position is remembered for the latter, and for the
    /// former with --save-position-on-quit (as q's).
    func quit(code: Int32, savingPosition: Bool) {
        if savingPosition || savesPositionOnQuit { rememberPosition() }
        quit(code)
    }

    func screenshot(withSubtitles: Bool) -> Bool {
        let (controller, window, url) = state.withLock { ($0.controller, $0.window, $0.url) }
        guard let controller else { return false }
        let mediaPts = controller.player.presentedMediaPts
        let subtitle = withSubtitles ? mediaPts.flatMap { controller.player.shownSubtitle(atMediaPts: $0) } : nil
        screenshots.take(url: url, mediaPts: mediaPts, subtitle: subtitle) { notice in window?.showNotice(notice) }
        return true
    }

    func toggleFullscreen() -> Bool {
        guard let window = state.withLock({ $0.window }) else { return false }
        window.toggleFullscreen()
        return true
    }
}
