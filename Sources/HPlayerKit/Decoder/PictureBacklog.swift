import CFFmpeg

/// Pictures a decoder took out of a decoder it is letting go (a drain, a replay), to give out
/// before the next one's: each an AVFrame of its own, freed when given or dropped.
final class PictureBacklog {
    private var frames: [UnsafeMutablePointer<AVFrame>] = []

    deinit { removeAll() }

    var isEmpty: Bool { frames.isEmpty }

    /// Keeps `frame`, which the backlog now owns.
    func append(_ frame: UnsafeMutablePointer<AVFrame>) { frames.append(frame) }

    /// Moves the oldest picture into `frame` (which must be empty); false when there is none.
    func takeFirst(into frame: UnsafeMutablePointer<AVFrame>) -> Bool {
        guard !frames.isEmpty else { return false }
        var first: UnsafeMutablePointer<AVFrame>? = frames.removeFirst()
        av_frame_move_ref(frame, first)
        av_frame_free(&first)
        return true
    }

    func removeAll() {
        for frame in frames {
            var owned: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&owned)
        }
        frames.removeAll()
    }
}
