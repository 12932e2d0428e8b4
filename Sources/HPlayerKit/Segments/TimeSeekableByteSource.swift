/// A byte source that seeks by time: the source asks it for the place of a time, then reads on
/// from there (an HLS stream jumps to a segment).
package protocol TimeSeekableByteSource: ByteSource {
    /// Seconds from the start, when known (VOD).
    var duration: Double? { get }
    /// Makes the next bytes those of the segment holding `seconds` (from the start); returns the
    /// byte offset those bytes begin at, for the reader's own position.
    func prepareSeek(toTime seconds: Double) throws(MediaError) -> Int64
    /// Whether the bytes are initialization sections each followed by its fragments (fMP4): a
    /// demuxer reads them front to back, and is opened anew on each section: after a seek by
    /// time, and where another initialization section begins (`isAtSectionEnd`).
    var isSectioned: Bool { get }
    /// The bytes handed out so far end where another initialization section begins: reads
    /// return 0 until `beginSection`.
    var isAtSectionEnd: Bool { get }
    /// Lets the next section be read, from its initialization section.
    func beginSection()
    /// Seconds added to the timestamps of the section last begun (a later DASH Period's media
    /// times, which start anew, onto the presentation's).
    var sectionTimeOffset: Double { get }
}
