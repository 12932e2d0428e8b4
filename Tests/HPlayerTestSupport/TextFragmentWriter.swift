import HPlayerKit

/// Writes a text track as DASH segments of fragmented MP4, as packagers do (ffmpeg 5.1 writes
/// neither `wvtt` nor fragmented `stpp`): an initialization section, then one fragment per
/// segment. WebVTT samples split time where cues begin and end (ISO/IEC 14496-30 §7.5: a cue
/// spanning a segment is in a sample of each); a TTML segment is one document of the
/// paragraphs overlapping it, timed on the track's timeline (§5.3). ffprobe reads the result.
package struct TextFragmentWriter {
    package enum Format: String { case webVTT = "wvtt", ttml = "stpp" }

    /// A cue whose text is as authored: WebVTT cue text, or TTML paragraph content (`a<br/>b`).
    package typealias Cue = SubtitleCue

    package var format: Format
    package var timescale: UInt32 = 1000
    package var trackID: UInt32 = 1

    package init(format: Format) {
        self.format = format
    }

    // MARK: The initialization section

    package func initialization() -> [UInt8] {
        let ftyp = MP4Boxes.box("ftyp", Array("iso6".utf8) + MP4Boxes.bytes(UInt32(0)) + Array("iso6dashcmfc".utf8))
        let mvhd = MP4Boxes.fullBox("mvhd", [UInt8](repeating: 0, count: 8) + MP4Boxes.bytes(timescale) + MP4Boxes.bytes(UInt32(0))
                                        + MP4Boxes.bytes(UInt32(0x0001_0000)) + MP4Boxes.bytes(UInt16(0x0100)) + [UInt8](repeating: 0, count: 10)
                                        + Self.unityMatrix + [UInt8](repeating: 0, count: 24) + MP4Boxes.bytes(trackID + 1))
        let tkhd = MP4Boxes.fullBox("tkhd", flags: 3, [UInt8](repeating: 0, count: 8) + MP4Boxes.bytes(trackID) + [UInt8](repeating: 0, count: 4)
                                        + MP4Boxes.bytes(UInt32(0)) + [UInt8](repeating: 0, count: 16) + Self.unityMatrix + [UInt8](repeating: 0, count: 8))
        let mdhd = MP4Boxes.fullBox("mdhd", [UInt8](repeating: 0, count: 8) + MP4Boxes.bytes(timescale) + MP4Boxes.bytes(UInt32(0))
                                        + MP4Boxes.bytes(UInt16(0x55c4)) + [0, 0])  // language "und"
        let handler = format == .webVTT ? "text" : "subt"
        let hdlr = MP4Boxes.fullBox("hdlr", MP4Boxes.bytes(UInt32(0)) + Array(handler.utf8) + [UInt8](repeating: 0, count: 12) + Array("Text\0".utf8))
        let mediaHeader = format == .webVTT ? MP4Boxes.fullBox("nmhd", []) : MP4Boxes.fullBox("sthd", [])
        let dinf = MP4Boxes.box("dinf", MP4Boxes.fullBox("dref", MP4Boxes.bytes(UInt32(1)) + MP4Boxes.fullBox("url ", flags: 1, [])))
        let reserved: [UInt8] = [0, 0, 0, 0, 0, 0] + MP4Boxes.bytes(UInt16(1))  // data_reference_index 1
        let entry = format == .webVTT
            ? MP4Boxes.box("wvtt", reserved + MP4Boxes.box("vttC", Array("WEBVTT".utf8)))
            : MP4Boxes.box("stpp", reserved + Array("http://www.w3.org/ns/ttml\0\0\0".utf8))
        let empty = MP4Boxes.bytes(UInt32(0))
        let stbl = MP4Boxes.box("stbl", MP4Boxes.fullBox("stsd", MP4Boxes.bytes(UInt32(1)) + entry) + MP4Boxes.fullBox("stts", empty)
                                    + MP4Boxes.fullBox("stsc", empty) + MP4Boxes.fullBox("stsz", empty + empty) + MP4Boxes.fullBox("stco", empty))
        let minf = MP4Boxes.box("minf", mediaHeader + dinf + stbl)
        let trak = MP4Boxes.box("trak", tkhd + MP4Boxes.box("mdia", mdhd + hdlr + minf))
        let trex = MP4Boxes.fullBox("trex", MP4Boxes.bytes(trackID) + MP4Boxes.bytes(UInt32(1)) + empty + empty + empty)
        return ftyp + MP4Boxes.box("moov", mvhd + trak + MP4Boxes.box("mvex", trex))
    }

    private static let unityMatrix: [UInt8] = [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000].flatMap { MP4Boxes.bytes(UInt32($0)) }

    // MARK: Segments

    /// The segment `number` (from 1) spanning `span` seconds, of `cues`.
    package func segment(number: UInt32, span: Range<Double>, cues: [Cue]) -> [UInt8] {
        let samples: [(start: Double, end: Double, data: [UInt8])]
        switch format {
        case .webVTT: samples = webVTTSamples(span: span, cues: cues)
        case .ttml: samples = [(span.lowerBound, span.upperBound, ttmlDocument(cues.filter { $0.end > span.lowerBound && $0.start < span.upperBound }))]
        }
        let ticks = { (seconds: Double) in Int64((seconds * Double(timescale)).rounded()) }
        let entries = samples.flatMap { sample in
            MP4Boxes.bytes(UInt32(ticks(sample.end) - ticks(sample.start))) + MP4Boxes.bytes(UInt32(sample.data.count))
        }
        let decodeTime = UInt64(ticks(span.lowerBound))
        func moof(dataOffset: UInt32) -> [UInt8] {
            let tfhd = MP4Boxes.fullBox("tfhd", flags: 0x02_0000, MP4Boxes.bytes(trackID))
            let tfdt = MP4Boxes.fullBox("tfdt", version: 1, MP4Boxes.bytes(UInt32(decodeTime >> 32)) + MP4Boxes.bytes(UInt32(decodeTime & 0xffff_ffff)))
            let trun = MP4Boxes.fullBox("trun", flags: 0x301, MP4Boxes.bytes(UInt32(samples.count)) + MP4Boxes.bytes(dataOffset) + entries)
            return MP4Boxes.box("moof", MP4Boxes.fullBox("mfhd", MP4Boxes.bytes(number)) + MP4Boxes.box("traf", tfhd + tfdt + trun))
        }
        let size = UInt32(moof(dataOffset: 0).count)
        let styp = MP4Boxes.box("styp", Array("msdh".utf8) + MP4Boxes.bytes(UInt32(0)) + Array("msdhmsix".utf8))
        return styp + moof(dataOffset: size + 8) + MP4Boxes.box("mdat", samples.flatMap(\.data))
    }

    /// Samples covering `span` wholly: between each change (a cue beginning or ending), the cues
    /// showing, or an empty cue box where none is.
    private func webVTTSamples(span: Range<Double>, cues: [Cue]) -> [(start: Double, end: Double, data: [UInt8])] {
        var times = Set([span.lowerBound, span.upperBound])
        for cue in cues {
            for time in [cue.start, cue.end] where span.contains(time) { times.insert(time) }
        }
        let edges = times.sorted()
        return zip(edges, edges.dropFirst()).map { start, end in
            let showing = cues.filter { $0.start <= start && $0.end >= end }
            let boxes = showing.isEmpty ? MP4Boxes.box("vtte", [])
                : showing.flatMap { MP4Boxes.box("vttc", MP4Boxes.box("payl", Array($0.text.utf8))) }
            return (start, end, boxes)
        }
    }

    private func ttmlDocument(_ cues: [Cue]) -> [UInt8] {
        func clock(_ seconds: Double) -> String {
            let milliseconds = Int((seconds * 1000).rounded())
            let pad = { (value: Int, width: Int) in String(repeating: "0", count: max(0, width - String(value).count)) + String(value) }
            return "\(pad(milliseconds / 3_600_000, 2)):\(pad(milliseconds / 60000 % 60, 2)):\(pad(milliseconds / 1000 % 60, 2)).\(pad(milliseconds % 1000, 3))"
        }
        let paragraphs = cues.map { #"      <p begin="\#(clock($0.start))" end="\#(clock($0.end))">\#($0.text)</p>"# }
        return Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            <tt xmlns="http://www.w3.org/ns/ttml" xmlns:tts="http://www.w3.org/ns/ttml#styling" xml:lang="en">
              <body>
                <div>
            \(paragraphs.joined(separator: "\n"))
                </div>
              </body>
            </tt>

            """.utf8)
    }
}
