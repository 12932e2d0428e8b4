/// A text rendition's bytes as they arrive, made into cues: fragmented MP4 (an initialization
/// section, then `moof`+`mdat` fragments) of WebVTT (`wvtt`) or TTML (`stpp`) samples. Boxes
/// are taken whole as they complete; what cannot be read is dropped with a reason, never
/// trapped on. Pure: bytes in, cues out.
package struct TextSampleStream {
    /// What the samples are.
    package enum Format: String, Sendable {
        case webVTT = "wvtt"
        case ttml = "stpp"
    }

    /// Seconds added to the cues of the bytes given from now on (a later Period's media times).
    package var timeOffset = 0.0
    /// The track, once an initialization section has named one.
    package private(set) var track: MP4TrackHeader?
    package var format: Format? { track.flatMap { Format(rawValue: $0.sampleEntry) } }
    /// Why bytes gave no cues, when some could not be read, until taken.
    private var problem: String?
    /// Where the samples read so far end, seconds (offset as the cues are).
    package private(set) var readUntil = -Double.infinity

    private var buffer: [UInt8] = []
    private var pendingMoof: [UInt8]?
    private var decodeTime: Int64 = 0

    /// A box larger than this is no text fragment's: the stream is taken as broken.
    static let boxLimit = 16 << 20

    package init() {}

    /// The bytes after a seek: a new initialization section comes first.
    package mutating func reset() {
        buffer.removeAll(keepingCapacity: true)
        pendingMoof = nil
        decodeTime = 0
        readUntil = -.infinity
    }

    /// The cues of the boxes that `bytes` complete.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) -> [SubtitleCue] {
        buffer.append(contentsOf: bytes)
        var cues: [SubtitleCue] = []
        while let size = Self.boxSize(buffer) {
            guard size <= Self.boxLimit else {
                note("a box of \(size) bytes: not a text fragment")
                buffer.removeAll()
                break
            }
            guard size <= buffer.count else { break }
            let box = Array(buffer[0..<size])
            buffer.removeFirst(size)
            cues += take(box)
        }
        if buffer.count >= 8, Self.boxSize(buffer) == nil {
            note("not MP4 boxes")
            buffer.removeAll()
        }
        return cues
    }

    /// The declared size of the box at the start of `bytes`; nil when not yet known or not a box
    /// (a type of other than printable ASCII: raw text, say).
    private static func boxSize(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 8, bytes[4..<8].allSatisfy({ (0x20...0x7e).contains($0) }),
              let size32 = MP4Boxes.uint32(bytes, at: 0) else { return nil }
        if size32 == 1 {
            guard let high = MP4Boxes.uint32(bytes, at: 8), let low = MP4Boxes.uint32(bytes, at: 12) else { return nil }
            let size = UInt64(high) << 32 | UInt64(low)
            return size >= 16 ? Int(clamping: size) : nil
        }
        return size32 >= 8 ? Int(size32) : nil
    }

    private mutating func take(_ box: [UInt8]) -> [SubtitleCue] {
        guard let header = MP4Boxes.children(of: box).first else { return [] }
        switch header.type {
        case "moov":
            track = FragmentSamples.track(in: header, of: box, handlers: ["text", "subt", "sbtl"])
                ?? FragmentSamples.track(in: header, of: box)
            if track == nil { note("an initialization section with no track") }
            if let track, format == nil { note("samples of \"\(track.sampleEntry)\": not WebVTT (wvtt) or TTML (stpp)") }
            decodeTime = 0
            return []
        case "moof":
            pendingMoof = box
            return []
        case "mdat":
            guard let moofBytes = pendingMoof else { return [] }
            pendingMoof = nil
            return cues(moof: moofBytes, mdat: box)
        default:
            return []  // ftyp, styp, sidx, emsg, free…
        }
    }

    private mutating func cues(moof moofBytes: [UInt8], mdat mdatBytes: [UInt8]) -> [SubtitleCue] {
        guard let track, let format else { return [] }
        let bytes = moofBytes + mdatBytes
        let boxes = MP4Boxes.children(of: bytes)
        guard boxes.count == 2 else { return [] }
        let (samples, end) = FragmentSamples.samples(of: boxes[0], mdat: boxes[1], in: bytes, track: track, decodeTime: decodeTime)
        decodeTime = end
        let scale = Double(track.timescale)
        var cues: [SubtitleCue] = []
        for sample in samples {
            let start = Double(sample.time) / scale + timeOffset
            let finish = Double(sample.time + sample.duration) / scale + timeOffset
            readUntil = max(readUntil, finish)
            switch format {
            case .webVTT:
                cues += WebVTTText.cues(inSample: bytes, sample.data, start: start, end: finish)
            case .ttml:
                do {
                    // Times on the track's timeline; a paragraph is kept while it overlaps its sample.
                    let document = try TTMLDocument.cues(in: Array(bytes[sample.data]), until: finish - timeOffset)
                    cues += document.compactMap { cue in
                        let shifted = cue.shifted(by: timeOffset)
                        return shifted.end > start && shifted.start < finish ? shifted : nil
                    }
                } catch {
                    note("a TTML sample at \(DecimalText.fixed(start, places: 3)) s: \(error.reason)")
                }
            }
        }
        return cues
    }

    private mutating func note(_ reason: String) {
        problem = reason
    }

    /// The latest reason bytes could not be read since the last call, if any.
    package mutating func takeProblem() -> String? {
        defer { problem = nil }
        return problem
    }
}
