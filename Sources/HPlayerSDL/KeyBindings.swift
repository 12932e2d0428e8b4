import HPlayerKit

/// What a key or a click asks for: a command for the player, or one for the front end itself
/// (the window, the terminal, the process).
public enum InputCommand: Equatable, Sendable {
    /// A command for the player: `PlayerController.perform` carries it out.
    case player(PlayerCommand)
    /// Full screen, or back (the window's `toggleFullscreen`).
    case toggleFullscreen
    /// Write the frame on screen to a PNG, with its subtitles or without (mpv's s and S).
    case screenshot(withSubtitles: Bool)
    /// Quit (q, Esc, the window's close button).
    case quit
    /// Quit, remembering the position for a later resume (mpv's quit-watch-later).
    case quitSavingPosition
    /// The playlist's next entry, or the one before.
    case playlistNext
    /// The playlist's entry before the one playing.
    case playlistPrevious
    /// Seek by this many chapters (mpv's `add chapter N`).
    case chapterStep(Int)
}

/// A key as the window or the terminal reports it.
public enum Key: Hashable, Sendable {
    /// What the key typed, shift and layout included ("#", "A").
    case character(Character)
    /// The arrow keys.
    case left, right, up, down
    /// Esc, Backspace, Enter (Return).
    case escape, backspace, enter
    /// Page Up, Page Down.
    case pageUp, pageDown
    /// F1 to F12.
    case function(Int)
    /// A mouse button or a turn of the wheel.
    case mouse(MouseInput)
    /// A key with Ctrl, Alt or Meta held, or Shift with a key that types nothing (mpv's
    /// Ctrl+a, Alt+LEFT, Shift+PGUP).
    indirect case modified(KeyModifiers, Key)
}

/// The mouse's buttons and wheel, by mpv's names.
public enum MouseInput: String, CaseIterable, Hashable, Sendable {
    case left = "MBTN_LEFT", right = "MBTN_RIGHT", middle = "MBTN_MID", back = "MBTN_BACK", forward = "MBTN_FORWARD"
    case leftDouble = "MBTN_LEFT_DBL"
    case wheelUp = "WHEEL_UP", wheelDown = "WHEEL_DOWN", wheelLeft = "WHEEL_LEFT", wheelRight = "WHEEL_RIGHT"
}

/// The modifier keys held with a key.
public struct KeyModifiers: OptionSet, Hashable, Sendable {
    /// One bit per modifier, as the static members set them.
    public let rawValue: Int
    /// The modifiers of `rawValue`'s bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Shift: only with a key that types nothing (a typed "A" is the character itself).
    public static let shift = KeyModifiers(rawValue: 1)
    /// Ctrl.
    public static let ctrl = KeyModifiers(rawValue: 2)
    /// Alt.
    public static let alt = KeyModifiers(rawValue: 4)
    /// Meta (the Super or Windows key).
    public static let meta = KeyModifiers(rawValue: 8)
}

/// mpv's default bindings for the keys HPlayer has so far, so people's habits work.
public enum KeyBindings {
    /// What mpv's default input.conf does with `key`; nil for a key it leaves unbound here.
    /// Call it from any thread (the window's, in `onKey`).
    public static func command(for key: Key) -> InputCommand? {
        switch key {
        case .character(" "), .character("p"): return .player(.togglePause)
        case .left: return .player(.seek(by: -5))
        case .right: return .player(.seek(by: 5))
        case .up: return .player(.seek(by: 60))
        case .down: return .player(.seek(by: -60))
        case .character("L"): return .player(.toggleLoop)
        case .character("l"): return .player(.cycleABLoop)
        case .character("."): return .player(.stepFrame(forward: true))
        case .character(","): return .player(.stepFrame(forward: false))
        case .character("["): return .player(.scaleSpeed(by: 1 / 1.1))
        case .character("]"): return .player(.scaleSpeed(by: 1.1))
        case .character("{"): return .player(.scaleSpeed(by: 0.5))
        case .character("}"): return .player(.scaleSpeed(by: 2))
        case .backspace: return .player(.resetSpeed)
        case .character("#"): return .player(.cycleAudioTrack)
        case .character("j"): return .player(.cycleSubtitleTrack(forward: true))
        case .character("J"): return .player(.cycleSubtitleTrack(forward: false))
        case .character("v"): return .player(.toggleSubtitles)
        case .character("z"): return .player(.changeSubtitleDelay(by: -0.1))
        case .character("Z"): return .player(.changeSubtitleDelay(by: 0.1))
        case .character("r"): return .player(.changeSubtitlePosition(by: -1))
        case .character("R"): return .player(.changeSubtitlePosition(by: 1))
        case .character("F"): return .player(.changeSubtitleScale(by: -0.1))
        case .character("G"): return .player(.changeSubtitleScale(by: 0.1))
        case .character("m"): return .player(.toggleMute)
        case .character("9"): return .player(.changeVolume(by: -2))
        case .character("0"): return .player(.changeVolume(by: 2))
        case .character("f"): return .toggleFullscreen
        case .character("s"): return .screenshot(withSubtitles: true)
        case .character("S"): return .screenshot(withSubtitles: false)
        case .character("q"), .escape: return .quit
        case .character("Q"): return .quitSavingPosition
        case .character(">"), .enter: return .playlistNext
        case .character("<"): return .playlistPrevious
        case .pageUp: return .chapterStep(-1)
        case .pageDown: return .chapterStep(1)
        case .mouse(.wheelUp): return .player(.seek(by: 10))
        case .mouse(.wheelDown): return .player(.seek(by: -10))
        case .mouse(.leftDouble): return .toggleFullscreen
        case .mouse(.right): return .player(.togglePause)
        default: return nil
        }
    }
}
