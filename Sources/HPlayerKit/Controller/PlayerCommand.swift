/// What a person asks of the player through a key, a click or a remote.
public enum PlayerCommand: Equatable, Sendable {
    case togglePause
    /// Seconds forward (or back, when negative) from where playback stands.
    case seek(by: Double)
    /// A point of the media as a fraction of its duration (a click on the progress bar).
    case seekToFraction(Double)
    case toggleLoop
    /// Set A, then B, then clear the A-B loop (mpv's `l`).
    case cycleABLoop
    /// Pause and show the next frame, or the one before.
    case stepFrame(forward: Bool)
    /// Multiply the playback speed by a factor; `resetSpeed` goes back to 1.
    case scaleSpeed(by: Double)
    case resetSpeed
    /// Play the next audio track of the file (after the last, the first).
    case cycleAudioTrack
    /// Shows the next subtitle track (forward) or the one before; after the last, none.
    case cycleSubtitleTrack(forward: Bool)
    case toggleSubtitles
    case toggleMute
    /// Volume points (of 0...100) up, or down when negative.
    case changeVolume(by: Int)
    case toggleFullscreen
    /// Write the frame on screen to a PNG (mpv's screenshot).
    case screenshot
    case quit
    /// Quit, remembering the position for a later resume (mpv's quit-watch-later).
    case quitSavingPosition
}

/// A key as the window or the terminal reports it.
public enum Key: Hashable, Sendable {
    case character(Character)
    case left, right, up, down
    case escape, backspace
}

/// mpv's default bindings for the keys HPlayer has so far, so people's habits work.
public enum KeyBindings {
    public static func command(for key: Key) -> PlayerCommand? {
        switch key {
        case .character(" "), .character("p"): return .togglePause
        case .left: return .seek(by: -5)
        case .right: return .seek(by: 5)
        case .up: return .seek(by: 60)
        case .down: return .seek(by: -60)
        case .character("L"): return .toggleLoop
        case .character("l"): return .cycleABLoop
        case .character("."): return .stepFrame(forward: true)
        case .character(","): return .stepFrame(forward: false)
        case .character("["): return .scaleSpeed(by: 1 / 1.1)
        case .character("]"): return .scaleSpeed(by: 1.1)
        case .character("{"): return .scaleSpeed(by: 0.5)
        case .character("}"): return .scaleSpeed(by: 2)
        case .backspace: return .resetSpeed
        case .character("#"): return .cycleAudioTrack
        case .character("j"): return .cycleSubtitleTrack(forward: true)
        case .character("J"): return .cycleSubtitleTrack(forward: false)
        case .character("v"): return .toggleSubtitles
        case .character("m"): return .toggleMute
        case .character("9"): return .changeVolume(by: -2)
        case .character("0"): return .changeVolume(by: 2)
        case .character("f"): return .toggleFullscreen
        case .character("s"): return .screenshot
        case .character("q"), .escape: return .quit
        case .character("Q"): return .quitSavingPosition
        default: return nil
        }
    }
}
