/// Which subtitle track is shown, and which secondary one, whether subtitles are visible (`v`)
/// and the style they are drawn in: set by the player, read at each refresh.
final class SubtitleSelection: Sendable {
    private struct State {
        var track: SubtitleTrack?
        var secondaryTrack: SubtitleTrack?
        var isVisible = true
        var style = SubtitleStyle()
    }

    private let state = Locked(State())

    var track: SubtitleTrack? {
        get { state.withLock { $0.track } }
        set { state.withLock { $0.track = newValue } }
    }

    /// mpv's `--secondary-sid`: shown at the top, whatever `v` says (as mpv's
    /// secondary-sub-visibility, which `v` does not change).
    var secondaryTrack: SubtitleTrack? {
        get { state.withLock { $0.secondaryTrack } }
        set { state.withLock { $0.secondaryTrack = newValue } }
    }

    var isVisible: Bool {
        get { state.withLock { $0.isVisible } }
        set { state.withLock { $0.isVisible = newValue } }
    }

    var style: SubtitleStyle {
        get { state.withLock { $0.style } }
        set { state.withLock { $0.style = newValue } }
    }

    /// What to show with a frame at media time `pts`, in the style set.
    func shown(at pts: Double) -> ShownSubtitle? {
        let (track, secondaryTrack, isVisible, style) = state.withLock { ($0.track, $0.secondaryTrack, $0.isVisible, $0.style) }
        let primary = isVisible ? track?.shown(at: pts) : nil
        let secondary = secondaryTrack?.shown(at: pts)?.cues ?? []
        guard var shown = primary ?? (secondary.isEmpty ? nil : ShownSubtitle(cues: [], script: .plainText)) else { return nil }
        shown.style = style
        if !secondary.isEmpty { shown.secondary = secondary }
        return shown
    }
}

/// The subtitle track to show at the start (mpv's `--sid`).
public enum SubtitleChoice: Sendable, Equatable {
    /// An external file when one is given, else the first text stream the file marks as default.
    case auto
    /// None shown.
    case off
    /// Numbered from 1: the file's subtitle streams, then the external files.
    case number(Int)
}
