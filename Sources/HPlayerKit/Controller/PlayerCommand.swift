/// What a person asks of the player itself, through a key, a click or a remote (the front end's own
/// commands, a window's fullscreen say, are `InputCommand`s).
public enum PlayerCommand: Equatable, Sendable {
    /// Pause when playing (or about to), play when paused: by what was last asked, not the state.
    case togglePause
    /// Seconds forward (or back, when negative) from where playback stands.
    case seek(by: Double)
    /// A point of the media as a fraction of its duration (a click on the progress bar).
    case seekToFraction(Double)
    /// Loop the whole file, or stop looping.
    case toggleLoop
    /// Set A, then B, then clear the A-B loop (mpv's `l`).
    case cycleABLoop
    /// Pause and show the next frame, or the one before.
    case stepFrame(forward: Bool)
    /// Multiply the playback speed by a factor; `resetSpeed` goes back to 1.
    case scaleSpeed(by: Double)
    /// Back to speed 1.
    case resetSpeed
    /// Play the next audio track of the file (after the last, the first).
    case cycleAudioTrack
    /// Shows the next subtitle track (forward) or the one before; after the last, none.
    case cycleSubtitleTrack(forward: Bool)
    /// Draw the subtitle track shown, or hide it (mpv's `v`).
    case toggleSubtitles
    /// The subtitles this many seconds later, earlier when negative (mpv's `z` and `Z`).
    case changeSubtitleDelay(by: Double)
    /// Subtitle font sizes times this much more, less when negative (mpv's `G` and `F`).
    case changeSubtitleScale(by: Double)
    /// The subtitles this many percent of the height lower, higher when negative (mpv's `R` and `r`).
    case changeSubtitlePosition(by: Double)
    /// Mute, or unmute at the volume set.
    case toggleMute
    /// Volume points (of 0...100) up, or down when negative.
    case changeVolume(by: Int)
}
