import CSDL2
import FoundationEssentials
import HPlayerKit
import Logging

/// How the window looks: mpv's `--title`, `--geometry`, `--no-border` and `--fullscreen`.
public struct WindowOptions: Sendable {
    /// The window's title (`setTitle` changes it later).
    public var title: String
    /// The window's size and place; nil: the picture's own size, shrunk to fit the screen, centred.
    public var geometry: WindowGeometry?
    /// No title bar or frame.
    public var isBorderless = false
    /// Full screen from the start (the `f` key toggles it).
    public var isFullscreen = false
    /// mpv's --force-window: a window from the start, and for files without a picture.
    public var isForced = false

    /// Options, as the fields say: a framed window of the picture's size by default.
    public init(title: String, geometry: WindowGeometry? = nil, isBorderless: Bool = false, isFullscreen: Bool = false,
                isForced: Bool = false) {
        self.title = title
        self.geometry = geometry
        self.isBorderless = isBorderless
        self.isFullscreen = isFullscreen
        self.isForced = isForced
    }
}

/// What the window shows of a file that plays no video.
enum StillPicture {
    case cover(Frame)
    case noPicture
}

/// The desktop window, on a thread of its own that owns every SDL video object. It makes the
/// window when a video opens, pumps events (keys, clicks and the close button become commands),
/// asks the renderer for a frame at each refresh and draws it: letterboxed, turned as the stream
/// says, with the on-screen display on top.
///
/// Refreshes follow the frames' deadlines, woken no later than every 10 ms; `SDL_RenderPresent`
/// waits for vsync where the display has one. While the window is hidden or minimized, frames
/// are still taken at their time but not drawn, so sound and sync go on.
///
/// Its methods may be called from any thread: they post to the window's thread. Close the
/// player before the window.
public final class SDLWindow: @unchecked Sendable {
    /// How often an idle window looks at its mailbox when nothing wakes it.
    static let idleWait: Int32 = 100
    static let longestRefreshWait = 0.01

    private let options: WindowOptions
    private let onKey: @Sendable (Key) -> Void
    private let onCommand: @Sendable (InputCommand) -> Void
    private let status: @Sendable () -> PlayerStatus?
    private let mailbox: WindowMailbox
    private var thread: JoinableThread?
    private let wakeEventType = Locked<UInt32>(0)

    private enum Start {
        case starting, running
        case failed(String)
    }

    /// Starts the window thread and its SDL video; throws when there is no display.
    /// - Parameters:
    ///   - onKey: keys, as the bindings name them, for the program to bind (on the window thread).
    ///   - onCommand: clicks and the close button (on the window thread).
    ///   - status: the player's state, for the on-screen display (on the window thread).
    public init(options: WindowOptions, onKey: @escaping @Sendable (Key) -> Void, onCommand: @escaping @Sendable (InputCommand) -> Void,
                status: @escaping @Sendable () -> PlayerStatus?) throws(MediaError) {
        self.options = options
        self.onKey = onKey
        self.onCommand = onCommand
        self.status = status
        let wakeEventType = self.wakeEventType
        mailbox = WindowMailbox {
            let type = wakeEventType.withLock { $0 }
            guard type != 0 else { return }
            var event = SDL_Event()
            event.type = type
            SDL_PushEvent(&event)
        }
        let start = Locked(Start.starting)
        let ready = ConditionLock()
        thread = JoinableThread(name: "hp-window") { [self] in
            run { failure in
                ready.withLock {
                    start.withLock { $0 = failure.map(Start.failed) ?? .running }
                    ready.broadcast()
                }
            }
        }
        let outcome = ready.withLock { () -> Start in
            while case .starting = start.withLock({ $0 }) { ready.wait() }
            return start.withLock { $0 }
        }
        if case .failed(let reason) = outcome {
            thread?.join()
            throw MediaError(input: "display", reason: reason)
        }
    }

    deinit { close() }

    // MARK: From other threads

    func attach(renderer: VideoRendering, format: VideoFormat) {
        mailbox.post { $0.video = (renderer, format) }
    }

    func detach() { mailbox.detach() }
    func start() { mailbox.post { $0.isRunning = true } }
    func pause() { mailbox.pause() }
    func requestRefresh() { mailbox.post { $0.isRefreshRequested = true } }

    /// A short notice on the on-screen display.
    public func showNotice(_ text: String) { mailbox.post { $0.notices.append(text) } }
    /// The window's title from now on (each playlist entry's).
    public func setTitle(_ text: String) { mailbox.post { $0.title = text } }
    /// A file plays no video: the window shows `cover`, its attached picture; without one, the
    /// window closes (it stays, black, with --force-window).
    public func showNoVideo(cover: Frame?) { mailbox.post { $0.stillPicture = cover.map(StillPicture.cover) ?? StillPicture.noPicture } }
    /// The chapters' starts (seconds) marked on the progress bar from now on.
    public func setChapterMarks(_ starts: [Double]) { mailbox.post { $0.chapterMarks = starts } }
    /// Full screen, or back to the window as it was.
    public func toggleFullscreen() { mailbox.post { $0.togglesFullscreen.toggle() } }

    /// Closes the window and joins its thread. Not from the window's own callbacks (`onKey`,
    /// `onCommand`, `status`), which run on that thread.
    public func close() {
        mailbox.post { $0.isClosing = true }
        thread?.join()
        thread = nil
    }

    // MARK: The window thread

    private func run(ready: (String?) -> Void) {
        SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1")  // Ctrl-C is the program's, not SDL's
        if let reason = Self.displayMissing() {
            ready(reason)
            return
        }
        guard SDL_InitSubSystem(SDL_INIT_VIDEO) == 0 else {
            ready(SDLError.current)
            return
        }
        wakeEventType.withLock { $0 = SDL_RegisterEvents(1) }
        ready(nil)
        let screen = WindowScreen(options: options)
        if options.isForced { screen.openEmpty() }
        var event = SDL_Event()
        var pictureSize: PictureSize?
        while true {
            let requests = mailbox.take()
            if requests.isClosing { break }
            let now = MonotonicClock.now()
            if let title = requests.title { screen.setTitle(title) }
            if let marks = requests.chapterMarks { screen.setChapterMarks(marks) }
            if requests.togglesFullscreen { screen.toggleFullscreen() }
            switch requests.stillPicture {
            case .cover(let picture)?: screen.showStill(picture)
            case .noPicture?: screen.showNoPicture(keepsWindow: options.isForced)
            case nil: break
            }
            if let video = requests.video { screen.show(video.format) }
            screen.setPlaying(requests.isRunning)
            for notice in requests.notices { screen.osd?.show(notice, at: now) }

            var nextDeadline: Double?
            if let renderer = mailbox.beginRefresh() {
                let refresh = renderer.refresh(at: now)
                if let frame = refresh.frame {
                    screen.upload(frame)
                    renderer.didPresent(frame, at: now)
                }
                nextDeadline = refresh.nextDeadline
                // Paused, a step or preview waiting for its picture asks to be looked at again.
                mailbox.endRefresh(again: !requests.isRunning && nextDeadline != nil)
            }
            // Asked at every turn, not only with a new frame: v and j change it while paused.
            if let pts = screen.shownMediaPts {
                screen.setSubtitle(mailbox.subtitle(atMediaPts: pts), next: screen.nextMediaPts.flatMap { mailbox.subtitle(atMediaPts: $0) })
            }
            let current = status()
            if let notice = Self.variantNotice(shown: current?.videoSize, before: pictureSize, variant: current?.variant) {
                screen.osd?.show(notice, at: now)
            }
            pictureSize = current?.videoSize ?? pictureSize
            screen.drawIfNeeded(status: current, at: now)

            if SDL_WaitEventTimeout(&event, waitMilliseconds(running: requests.isRunning, deadline: nextDeadline,
                                                              animating: screen.isAnimating(status: status(), at: now))) != 0 {
                repeat { handle(event, screen: screen) } while SDL_PollEvent(&event) != 0
            }
        }
        screen.destroy()
        SDL_QuitSubSystem(SDL_INIT_VIDEO)
    }

    /// Windows go on an X or Wayland display; SDL's other drivers (a console's KMS, offscreen)
    /// are not a desktop, unless SDL_VIDEODRIVER asks for one.
    private static func displayMissing() -> String? {
        let environment = ProcessInfo.processInfo.environment
        if let driver = environment["SDL_VIDEODRIVER"], !driver.isEmpty { return nil }
        let x11 = !(environment["DISPLAY"] ?? "").isEmpty
        let wayland = !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        guard x11 || wayland else { return "DISPLAY and WAYLAND_DISPLAY are not set" }
        SDL_SetHint(SDL_HINT_VIDEODRIVER, wayland ? "wayland,x11" : "x11")
        return nil
    }

    private func waitMilliseconds(running: Bool, deadline: Double?, animating: Bool) -> Int32 {
        // Paused, a refresh gives a deadline only when it waits for a picture.
        guard running || deadline != nil else { return animating ? 33 : Self.idleWait }
        let now = MonotonicClock.now()
        let until = min(deadline ?? .infinity, now + Self.longestRefreshWait)
        return Int32(max(0, ((until - now) * 1000).rounded(.up)))
    }

    private func handle(_ event: SDL_Event, screen: WindowScreen) {
        let now = MonotonicClock.now()
        switch SDL_EventType(event.type) {
        case SDL_QUIT:
            onCommand(.quit)
        case SDL_KEYDOWN:
            screen.osd?.poke(at: now)
            let key = Self.key(from: event.key.keysym)
            // A character with Ctrl, Alt or Meta is named by its key down; X may still type it
            // (Ctrl+9 types 9): the text that follows this key down is not a key of its own.
            if case .modified(_, .character)? = key { screen.suppressesNextText = true } else { screen.suppressesNextText = false }
            if let key { onKey(key) }
        case SDL_TEXTINPUT:
            // What a key types, as the keyboard's layout makes it: "#" is Shift+3 on one, AltGr+3 on another.
            if screen.suppressesNextText {
                screen.suppressesNextText = false
                break
            }
            var text = event.text.text
            let typed = withUnsafeBytes(of: &text) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            for character in typed { onKey(.character(character)) }
        case SDL_MOUSEMOTION:
            screen.osd?.poke(at: now)
            if screen.isDraggingOnBar, let fraction = screen.barFraction(x: Int(event.motion.x), y: nil) {
                onCommand(.player(.seekToFraction(fraction)))
            }
        case SDL_MOUSEBUTTONDOWN where event.button.button == UInt8(SDL_BUTTON_LEFT):
            screen.osd?.poke(at: now)
            if let fraction = screen.barFraction(x: Int(event.button.x), y: Int(event.button.y)) {
                screen.isDraggingOnBar = true
                onCommand(.player(.seekToFraction(fraction)))
            } else {
                onKey(.mouse(event.button.clicks == 2 ? .leftDouble : .left))
            }
        case SDL_MOUSEBUTTONDOWN:
            screen.osd?.poke(at: now)
            if let button = Self.mouseInput(button: Int32(event.button.button)) { onKey(button) }
        case SDL_MOUSEWHEEL:
            screen.osd?.poke(at: now)
            for key in Self.wheelKeys(x: event.wheel.x, y: event.wheel.y, flipped: event.wheel.direction == SDL_MOUSEWHEEL_FLIPPED.rawValue) {
                onKey(key)
            }
        case SDL_MOUSEBUTTONUP:
            screen.isDraggingOnBar = false
        case SDL_WINDOWEVENT:
            screen.windowChanged(SDL_WindowEventID(UInt32(event.window.event)))
        default:
            break
        }
    }

    /// The key pressed, as the bindings name it, for keys that type nothing (arrows, F1, …) and
    /// for any key with Ctrl, Alt or Meta (Ctrl+a, as mpv names it); the keys that type a
    /// character come as text input instead.
    static func key(from keysym: SDL_Keysym) -> Key? {
        let modifiers = Self.modifiers(keysym.mod)
        let key: Key
        switch SDL_KeyCode(UInt32(bitPattern: keysym.sym)) {
        case SDLK_LEFT: key = .left
        case SDLK_RIGHT: key = .right
        case SDLK_UP: key = .up
        case SDLK_DOWN: key = .down
        case SDLK_ESCAPE: key = .escape
        case SDLK_BACKSPACE: key = .backspace
        case SDLK_RETURN, SDLK_KP_ENTER: key = .enter
        case SDLK_PAGEUP: key = .pageUp
        case SDLK_PAGEDOWN: key = .pageDown
        case SDLK_TAB: key = .character("\t")  // types nothing SDL sends as text
        case let code where (SDLK_F1.rawValue...SDLK_F12.rawValue).contains(code.rawValue):
            key = .function(Int(code.rawValue - SDLK_F1.rawValue) + 1)
        default:
            // A character with Ctrl, Alt or Meta types no text: named by its unshifted key, as mpv names Ctrl+a.
            guard !modifiers.subtracting(.shift).isEmpty, keysym.sym >= 32, keysym.sym < 127,
                  let scalar = Unicode.Scalar(UInt32(keysym.sym)) else { return nil }
            // Shift with a letter is its capital, as mpv writes Ctrl+A; with another key, Shift
            // stays a modifier of the key (Ctrl+Shift+1), whatever the layout types with it.
            let character = Character(scalar)
            guard modifiers.contains(.shift), character.isLetter else { return .modified(modifiers, .character(character)) }
            return .modified(modifiers.subtracting(.shift), .character(Character(character.uppercased())))
        }
        return modifiers.isEmpty ? key : .modified(modifiers, key)
    }

    private static func modifiers(_ mod: UInt16) -> KeyModifiers {
        var modifiers: KeyModifiers = []
        if mod & UInt16(KMOD_SHIFT.rawValue) != 0 { modifiers.insert(.shift) }
        if mod & UInt16(KMOD_CTRL.rawValue) != 0 { modifiers.insert(.ctrl) }
        // Left Alt only: right Alt is AltGr on many layouts, which types characters ("{" on a German one).
        if mod & UInt16(KMOD_LALT.rawValue) != 0 { modifiers.insert(.alt) }
        if mod & UInt16(KMOD_GUI.rawValue) != 0 { modifiers.insert(.meta) }
        return modifiers
    }

    /// The mouse's other buttons (left is the window's own: the bar, a double click).
    static func mouseInput(button: Int32) -> Key? {
        switch button {
        case SDL_BUTTON_RIGHT: .mouse(.right)
        case SDL_BUTTON_MIDDLE: .mouse(.middle)
        case SDL_BUTTON_X1: .mouse(.back)
        case SDL_BUTTON_X2: .mouse(.forward)
        default: nil
        }
    }

    /// A turn of the wheel: one key per axis it moved on; `flipped`, the system's natural scrolling.
    static func wheelKeys(x: Int32, y: Int32, flipped: Bool) -> [Key] {
        let sign: Int32 = flipped ? -1 : 1
        var keys: [Key] = []
        if y * sign > 0 { keys.append(.mouse(.wheelUp)) } else if y * sign < 0 { keys.append(.mouse(.wheelDown)) }
        if x * sign > 0 { keys.append(.mouse(.wheelRight)) } else if x * sign < 0 { keys.append(.mouse(.wheelLeft)) }
        return keys
    }

    /// What the window says when the picture changes size under an HLS stream (a variant
    /// switch reaching the screen): the variant, "1280x720 2.8 Mb/s", when the one fetched has
    /// that size, else the size alone. Nothing for the first picture, or for media of one variant.
    package static func variantNotice(shown: PictureSize?, before: PictureSize?, variant: VariantInfo?) -> String? {
        guard let variant, let shown, let before, shown != before else { return nil }
        return variant.width == shown.width && variant.height == shown.height ? variant.summary : "\(shown.width)x\(shown.height)"
    }
}
