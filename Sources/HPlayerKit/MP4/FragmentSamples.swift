/// A track as its initialization section (`moov`) describes it: what reading its fragments'
/// samples needs.
package struct MP4TrackHeader: Equatable, Sendable {
    package var trackID: UInt32
    /// Units per second of its sample times (`mdhd`).
    package var timescale: UInt32
    /// The type of its first sample entry (`stsd`): "wvtt", "stpp", "avc1"…
    package var sampleEntry: String
    /// Defaults for its fragments' samples (`mvex/trex`).
    package var defaultDuration: UInt32 = 0
    package var defaultSize: UInt32 = 0
}

/// One sample of a fragment: when it is shown, for how long (in its track's timescale), and
/// where its bytes lie in the fragment's bytes.
package struct MP4Sample: Equatable, Sendable {
    package var time: Int64
    package var duration: Int64
    package var data: Range<Int>
}

/// Reads the samples of a fragmented MP4 track (ISO/IEC 14496-12 §8.8): the track's header
/// from `moov`, then each fragment's from its `moof` and the `mdat` after it. Pure: a
/// fragment's bytes in, plain values out; whatever does not fit is left out, never trapped on.
package enum FragmentSamples {
    /// The first track of `moov` whose handler is one of `handlers` (any, when empty).
    package static func track(in moov: MP4Box, of bytes: [UInt8], handlers: Set<String> = []) -> MP4TrackHeader? {
        let traks = MP4Boxes.children(of: bytes, in: moov.payload).filter { $0.type == "trak" }
        guard let trak = traks.first(where: { handlers.isEmpty || MP4Boxes.handler(of: $0, in: bytes).map(handlers.contains) == true }),
              let trackID = MP4Boxes.trackID(of: trak, in: bytes),
              let mdia = MP4Boxes.child("mdia", of: trak, in: bytes),
              let timescale = self.timescale(of: mdia, in: bytes), timescale > 0 else { return nil }
        var header = MP4TrackHeader(trackID: trackID, timescale: timescale, sampleEntry: sampleEntry(of: mdia, in: bytes) ?? "")
        let mvex = MP4Boxes.child("mvex", of: moov, in: bytes)
        let trexes = mvex.map { MP4Boxes.children(of: bytes, in: $0.payload).filter { $0.type == "trex" } } ?? []
        if let trex = trexes.first(where: { MP4Boxes.uint32(bytes, at: $0.payload.lowerBound + 4) == trackID }), trex.payload.count >= 24 {
            header.defaultDuration = MP4Boxes.uint32(bytes, at: trex.payload.lowerBound + 12) ?? 0
            header.defaultSize = MP4Boxes.uint32(bytes, at: trex.payload.lowerBound + 16) ?? 0
        }
        return header
    }

    /// `mdhd`'s timescale: after 8-byte times in version 1, 4-byte ones in version 0.
    private static func timescale(of mdia: MP4Box, in bytes: [UInt8]) -> UInt32? {
        guard let mdhd = MP4Boxes.child("mdhd", of: mdia, in: bytes), !mdhd.payload.isEmpty else { return nil }
        let offset = mdhd.payload.lowerBound + (bytes[mdhd.payload.lowerBound] == 1 ? 20 : 12)
        return offset + 4 <= mdhd.payload.upperBound ? MP4Boxes.uint32(bytes, at: offset) : nil
    }

    /// The type of `minf/stbl/stsd`'s first entry.
    private static func sampleEntry(of mdia: MP4Box, in bytes: [UInt8]) -> String? {
        guard let minf = MP4Boxes.child("minf", of: mdia, in: bytes), let stbl = MP4Boxes.child("stbl", of: minf, in: bytes),
              let stsd = MP4Boxes.child("stsd", of: stbl, in: bytes), stsd.payload.count >= 8 else { return nil }
        let entries = (stsd.payload.lowerBound + 8)..<stsd.payload.upperBound
        return MP4Boxes.children(of: bytes, in: entries).first?.type
    }

    /// The track's samples in the fragment `moof` of `bytes`, their data in `mdat` (the box
    /// after it). `decodeTime` is where the fragment starts when it has no `tfdt` (where the
    /// one before ended); returns the samples and where this fragment ends.
    package static func samples(of moof: MP4Box, mdat: MP4Box, in bytes: [UInt8], track: MP4TrackHeader,
                                decodeTime: Int64) -> (samples: [MP4Sample], end: Int64) {
        var samples: [MP4Sample] = []
        var time = decodeTime
        for traf in MP4Boxes.children(of: bytes, in: moof.payload) where traf.type == "traf" {
            guard let tfhd = MP4Boxes.child("tfhd", of: traf, in: bytes), let fields = FragmentHeader(tfhd, in: bytes),
                  fields.trackID == track.trackID else { continue }
            if let tfdt = MP4Boxes.child("tfdt", of: traf, in: bytes), let base = baseDecodeTime(tfdt, in: bytes) { time = base }
            let defaults = (duration: fields.defaultDuration ?? track.defaultDuration, size: fields.defaultSize ?? track.defaultSize)
            // Offsets count from the moof (default-base-is-moof, as CMAF has it); a stream's
            // bytes have no file position for an explicit base-data-offset to count from.
            var dataOffset = mdat.payload.lowerBound
            for trun in MP4Boxes.children(of: bytes, in: traf.payload) where trun.type == "trun" {
                guard let run = TrackRun(trun, in: bytes, defaults: defaults) else { break }
                if let offset = run.dataOffset { dataOffset = moof.range.lowerBound + offset }
                for entry in run.entries {
                    let end = dataOffset + Int(entry.size)
                    guard dataOffset >= mdat.payload.lowerBound, end <= mdat.payload.upperBound else { return (samples, time) }
                    samples.append(MP4Sample(time: time + entry.compositionOffset, duration: Int64(entry.duration), data: dataOffset..<end))
                    dataOffset = end
                    time += Int64(entry.duration)
                }
            }
        }
        return (samples, time)
    }

    private static func baseDecodeTime(_ tfdt: MP4Box, in bytes: [UInt8]) -> Int64? {
        let start = tfdt.payload.lowerBound
        guard tfdt.payload.count >= 8, let high = MP4Boxes.uint32(bytes, at: start + 4) else { return nil }
        guard bytes[start] == 1 else { return Int64(high) }
        guard tfdt.payload.count >= 12, let low = MP4Boxes.uint32(bytes, at: start + 8) else { return nil }
        return Int64(exactly: UInt64(high) << 32 | UInt64(low))
    }
}

/// The fields of a `tfhd` that sample reading uses.
private struct FragmentHeader {
    var trackID: UInt32
    var defaultDuration: UInt32?
    var defaultSize: UInt32?

    init?(_ tfhd: MP4Box, in bytes: [UInt8]) {
        let start = tfhd.payload.lowerBound
        guard let flags = MP4Boxes.uint32(bytes, at: start).map({ $0 & 0xff_ffff }), let trackID = MP4Boxes.uint32(bytes, at: start + 4) else { return nil }
        self.trackID = trackID
        var offset = start + 8
        if flags & 0x01 != 0 { offset += 8 }  // base-data-offset
        if flags & 0x02 != 0 { offset += 4 }  // sample-description-index
        if flags & 0x08 != 0 {
            defaultDuration = MP4Boxes.uint32(bytes, at: offset)
            offset += 4
        }
        if flags & 0x10 != 0 { defaultSize = MP4Boxes.uint32(bytes, at: offset) }
        guard offset <= tfhd.payload.upperBound else { return nil }
    }
}

/// A `trun`: its data offset and its samples' durations, sizes and composition offsets.
private struct TrackRun {
    struct Entry {
        var duration: UInt32
        var size: UInt32
        var compositionOffset: Int64
    }

    var dataOffset: Int?
    var entries: [Entry] = []

    /// More samples than this in one run is no text track's.
    static let entryLimit = 1 << 16

    init?(_ trun: MP4Box, in bytes: [UInt8], defaults: (duration: UInt32, size: UInt32)) {
        let start = trun.payload.lowerBound
        guard let word = MP4Boxes.uint32(bytes, at: start), let count = MP4Boxes.uint32(bytes, at: start + 4), count <= Self.entryLimit else { return nil }
        let version = word >> 24, flags = word & 0xff_ffff
        var offset = start + 8
        if flags & 0x01 != 0 {
            guard let raw = MP4Boxes.uint32(bytes, at: offset) else { return nil }
            dataOffset = Int(Int32(bitPattern: raw))
            offset += 4
        }
        if flags & 0x04 != 0 { offset += 4 }  // first-sample-flags
        let fieldCount = [0x100, 0x200, 0x400, 0x800].filter { flags & $0 != 0 }.count
        guard trun.payload.upperBound - offset >= Int(count) * fieldCount * 4 else { return nil }
        entries.reserveCapacity(Int(count))
        for _ in 0..<count {
            var entry = Entry(duration: defaults.duration, size: defaults.size, compositionOffset: 0)
            if flags & 0x100 != 0 { entry.duration = MP4Boxes.uint32(bytes, at: offset) ?? 0; offset += 4 }
            if flags & 0x200 != 0 { entry.size = MP4Boxes.uint32(bytes, at: offset) ?? 0; offset += 4 }
            if flags & 0x400 != 0 { offset += 4 }
            if flags & 0x800 != 0 {
                let raw = MP4Boxes.uint32(bytes, at: offset) ?? 0
                entry.compositionOffset = version == 0 ? Int64(raw) : Int64(Int32(bitPattern: raw))
                offset += 4
            }
            entries.append(entry)
        }
    }
}
