/// The pictures a variant switch brings that the variant before has already shown. A switch's
/// bytes can begin before the switch in time: a segment that does not start with a key frame is
/// decoded from the last key frame of the segment before it (SegmentKeyFrame), and one cut by
/// time between a P picture and the B pictures shown before it holds pictures of the segment
/// before. Those pictures are decoded, as later ones refer to them, but not shown: no picture is
/// shown twice. Pure, over the video packets in the order the demuxer reads them.
struct SwitchOverlap {
    /// The highest pts of a video packet read and kept so far (since the last seek).
    private var highestPTS: Int64?
    /// The switch whose bytes are being read: their positions in the stream, and the pts the
    /// variant before reached.
    private var current: (positions: Range<Int64>, through: Int64?)?

    /// Whether a video packet at `position` with `pts` is a picture already shown, given the
    /// positions of the switches' bytes (each switch's: from its first byte to the end of its
    /// first segment, ascending).
    mutating func isAlreadyShown(position: Int64, pts: Int64?, switches: [Range<Int64>]) -> Bool {
        if let range = switches.last(where: { $0.contains(position) }) {
            if current?.positions != range { current = (range, highestPTS) }
            if let pts, let through = current?.through, pts <= through { return true }
        }
        if let pts { highestPTS = max(highestPTS ?? pts, pts) }
        return false
    }

    /// A seek: what was read before it says nothing of what comes after.
    mutating func reset() {
        highestPTS = nil
        current = nil
    }
}
