import CFFmpeg

/// Encrypts the media segments of a CENC package (ISO/IEC 23001-7, scheme `cenc`: AES-128 in
/// counter mode, an 8-byte IV per sample). Each sample is encrypted in place, so the `mdat`
/// keeps its size; each `traf` gains a `senc` (the IVs and, for the picture, the subsamples),
/// a `saiz` and a `saio` pointing into the `senc`, and every `trun`'s data offset moves by what
/// the `moof` grew. The picture is encrypted by subsample: each video-slice NAL unit after its
/// length and header, every other NAL unit left clear, so a parser still finds them.
/// `saiz` and `saio` come before the `senc` they point into: a reader that can seek reads the
/// IVs through them; one that cannot (libavformat on a stream) reads the `senc`.
final class CENCFragmentEncryptor {
    private let tracks: [UInt32: CENCTrack]
    private let context: OpaquePointer
    /// The next sample's IV: random at the start, then counted up (never one IV twice under a key).
    private var nextIV: UInt64

    init(key: [UInt8], tracks: [UInt32: CENCTrack]) throws(CENCPackagingError) {
        guard key.count == 16 else { throw CENCPackagingError("the key is not 16 bytes") }
        guard let context = av_aes_ctr_alloc() else { throw CENCPackagingError("out of memory") }
        guard key.withUnsafeBufferPointer({ av_aes_ctr_init(context, $0.baseAddress) }) == 0 else {
            av_aes_ctr_free(context)
            throw CENCPackagingError("cannot start AES-CTR")
        }
        self.context = context
        self.tracks = tracks
        nextIV = UInt64.random(in: 0...UInt64.max / 2)
    }

    deinit { av_aes_ctr_free(context) }

    /// A sample's place in the segment, and its subsamples (clear bytes, then encrypted ones).
    private struct Sample {
        var range: Range<Int>
        var subsamples: [(clear: Int, protected: Int)]?
        var iv: UInt64 = 0
    }

    /// The segment, encrypted.
    func encrypt(_ segment: [UInt8]) throws(CENCPackagingError) -> [UInt8] {
        let boxes = MP4Boxes.children(of: segment)
        guard boxes.last?.range.upperBound == segment.count else { throw CENCPackagingError("a segment that ends inside a box") }
        var bytes = segment
        var output: [UInt8] = []
        output.reserveCapacity(segment.count + 4096)
        for box in boxes {
            if box.type == "moof" {
                output += try encryptFragment(moof: box, in: &bytes)
            } else {
                output += bytes[box.range]
            }
        }
        return output
    }

    /// Encrypts the samples that `moof` describes (in `bytes`), and gives the new `moof`.
    private func encryptFragment(moof: MP4Box, in bytes: inout [UInt8]) throws(CENCPackagingError) -> [UInt8] {
        let children = MP4Boxes.children(of: bytes, in: moof.payload)
        // First the samples and their auxiliary boxes, whose sizes say how far the data moves.
        var additions: [Int: (senc: [UInt8], saiz: [UInt8])] = [:]
        for (index, traf) in children.enumerated() where traf.type == "traf" {
            var samples = try self.samples(of: traf, moofStart: moof.range.lowerBound, in: bytes)
            for index in samples.indices {
                samples[index].iv = nextIV
                nextIV &+= 1
                encrypt(samples[index], in: &bytes)
            }
            additions[index] = try auxiliaryInformation(samples)
        }
        let growth = additions.values.reduce(0) { $0 + $1.senc.count + $1.saiz.count + Self.saioSize }
        var payload: [UInt8] = []
        for (index, child) in children.enumerated() {
            guard let (senc, saiz) = additions[index] else {
                payload += bytes[child.range]
                continue
            }
            var traf: [UInt8] = []
            for part in MP4Boxes.children(of: bytes, in: child.payload) {
                var copy = Array(bytes[part.range])
                if part.type == "trun", let flags = MP4Boxes.uint32(copy, at: 8), flags & 0x1 != 0, let offset = MP4Boxes.uint32(copy, at: 16) {
                    MP4Boxes.set(UInt32(truncatingIfNeeded: Int(Int32(bitPattern: offset)) + growth), in: &copy, at: 16)
                }
                traf += copy
            }
            // The first IV's distance from the moof's start: the moof's header, what comes
            // before, the traf's header and boxes, saiz and saio, and the senc's header, flags
            // and count.
            let ivOffset = 8 + payload.count + 8 + traf.count + saiz.count + Self.saioSize + 16
            let saio = MP4Boxes.fullBox("saio", MP4Boxes.bytes(UInt32(1)) + MP4Boxes.bytes(UInt32(ivOffset)))
            payload += MP4Boxes.box("traf", traf + saiz + saio + senc)
        }
        return MP4Boxes.box("moof", payload)
    }

    private static let saioSize = 20

    /// The samples of `traf`: where each lies (from its `trun`s' data offsets, relative to the
    /// moof, and their sample sizes) and, for the picture, its subsamples.
    private func samples(of traf: MP4Box, moofStart: Int, in bytes: [UInt8]) throws(CENCPackagingError) -> [Sample] {
        let parts = MP4Boxes.children(of: bytes, in: traf.payload)
        guard let tfhd = parts.first(where: { $0.type == "tfhd" }), tfhd.payload.count >= 8,
              let tfhdFlags = MP4Boxes.uint32(bytes, at: tfhd.payload.lowerBound).map({ $0 & 0xff_ffff }),
              let trackID = MP4Boxes.uint32(bytes, at: tfhd.payload.lowerBound + 4), let track = tracks[trackID] else {
            throw CENCPackagingError("a track fragment of no known track")
        }
        // Sample data offsets from the moof's start: what the trun's shift below assumes.
        guard tfhdFlags & 0x1 == 0, tfhdFlags & 0x2_0000 != 0 else {
            throw CENCPackagingError("a track fragment not based at its moof: not encrypted by this packager")
        }
        var offset = tfhd.payload.lowerBound + 8
        if tfhdFlags & 0x02 != 0 { offset += 4 }
        if tfhdFlags & 0x08 != 0 { offset += 4 }
        var defaultSize = track.defaultSampleSize
        if tfhdFlags & 0x10 != 0 { defaultSize = MP4Boxes.uint32(bytes, at: offset) }
        var samples: [Sample] = []
        for trun in parts where trun.type == "trun" {
            guard let head = MP4Boxes.uint32(bytes, at: trun.payload.lowerBound), let count = MP4Boxes.uint32(bytes, at: trun.payload.lowerBound + 4),
                  head & 0x1 != 0, let dataOffset = MP4Boxes.uint32(bytes, at: trun.payload.lowerBound + 8) else {
                throw CENCPackagingError("a trun without a data offset")
            }
            let flags = head & 0xff_ffff
            var position = trun.payload.lowerBound + 12 + (flags & 0x4 != 0 ? 4 : 0)
            let fieldCount = [0x100, 0x200, 0x400, 0x800].filter { flags & UInt32($0) != 0 }.count
            var start = moofStart + Int(Int32(bitPattern: dataOffset))
            guard fieldCount == 0 || Int(count) <= (trun.payload.upperBound - position) / (4 * fieldCount) else {
                throw CENCPackagingError("a trun longer than its box")
            }
            for _ in 0..<count {
                var size = defaultSize
                if flags & 0x100 != 0 { position += 4 }
                if flags & 0x200 != 0 {
                    size = MP4Boxes.uint32(bytes, at: position)
                    position += 4
                }
                if flags & 0x400 != 0 { position += 4 }
                if flags & 0x800 != 0 { position += 4 }
                guard let size, start >= 0, Int(size) <= bytes.count - start else { throw CENCPackagingError("a sample outside the segment") }
                let range = start..<(start + Int(size))
                samples.append(Sample(range: range, subsamples: track.nalLengthSize.map { subsamples(of: range, in: bytes, lengthSize: $0, isHEVC: track.isHEVC) }))
                start += Int(size)
            }
        }
        return samples
    }

    /// A picture sample's subsamples: each slice NAL unit encrypted after its length and header;
    /// the rest clear. A clear run longer than 16 bits can count is split.
    private func subsamples(of range: Range<Int>, in bytes: [UInt8], lengthSize: Int, isHEVC: Bool) -> [(clear: Int, protected: Int)] {
        var result: [(clear: Int, protected: Int)] = []
        var clear = 0
        var position = range.lowerBound
        while position + lengthSize <= range.upperBound {
            let length = bytes[position..<(position + lengthSize)].reduce(0) { $0 << 8 | Int($1) }
            guard length <= range.upperBound - position - lengthSize, length > 0 else { break }
            let header = isHEVC ? 2 : 1
            let type = isHEVC ? Int(bytes[position + lengthSize] >> 1 & 0x3f) : Int(bytes[position + lengthSize] & 0x1f)
            let isSlice = isHEVC ? type < 32 : (1...5).contains(type)
            if isSlice, length > header {
                result += Self.subsamples(clear: clear + lengthSize + header, protected: length - header)
                clear = 0
            } else {
                clear += lengthSize + length
            }
            position += lengthSize + length
        }
        clear += range.upperBound - position
        if clear > 0 { result += Self.subsamples(clear: clear, protected: 0) }
        return result
    }

    /// `clear` bytes then `protected` ones, as subsamples: a clear run longer than 16 bits can
    /// count is split.
    private static func subsamples(clear: Int, protected: Int) -> [(clear: Int, protected: Int)] {
        var result: [(clear: Int, protected: Int)] = []
        var clear = clear
        while clear > Int(UInt16.max) {
            result.append((Int(UInt16.max), 0))
            clear -= Int(UInt16.max)
        }
        result.append((clear, protected))
        return result
    }

    /// Encrypts `sample` in place: its protected bytes, one counter stream from its IV.
    private func encrypt(_ sample: Sample, in bytes: inout [UInt8]) {
        let iv = MP4Boxes.bytes(UInt32(sample.iv >> 32)) + MP4Boxes.bytes(UInt32(sample.iv & 0xffff_ffff))
        iv.withUnsafeBufferPointer { av_aes_ctr_set_iv(context, $0.baseAddress) }
        let protected = sample.subsamples.map { subsamples in
            var ranges: [Range<Int>] = []
            var position = sample.range.lowerBound
            for subsample in subsamples {
                position += subsample.clear
                ranges.append(position..<(position + subsample.protected))
                position += subsample.protected
            }
            return ranges
        } ?? [sample.range]
        for range in protected where !range.isEmpty {
            bytes.withUnsafeMutableBufferPointer { buffer in
                let start = buffer.baseAddress! + range.lowerBound
                av_aes_ctr_crypt(context, start, start, Int32(range.count))
            }
        }
    }

    /// `senc` (each sample's IV, and its subsamples when there are any) and `saiz` (each
    /// sample's share of the senc).
    private func auxiliaryInformation(_ samples: [Sample]) throws(CENCPackagingError) -> (senc: [UInt8], saiz: [UInt8]) {
        let usesSubsamples = samples.contains { $0.subsamples != nil }
        var senc = MP4Boxes.bytes(UInt32(samples.count))
        var sizes: [UInt8] = []
        for sample in samples {
            senc += MP4Boxes.bytes(UInt32(sample.iv >> 32)) + MP4Boxes.bytes(UInt32(sample.iv & 0xffff_ffff))
            var size = 8
            if usesSubsamples {
                let subsamples = sample.subsamples ?? []
                senc += MP4Boxes.bytes(UInt16(subsamples.count))
                for subsample in subsamples { senc += MP4Boxes.bytes(UInt16(subsample.clear)) + MP4Boxes.bytes(UInt32(subsample.protected)) }
                size += 2 + 6 * subsamples.count
                // saiz gives each sample's share in a byte: 41 subsamples at most.
                guard size <= Int(UInt8.max) else { throw CENCPackagingError("a picture of \(subsamples.count) NAL units: more than CENC's saiz can describe") }
            }
            sizes.append(UInt8(size))
        }
        let uniform = Set(sizes).count <= 1
        let saiz = MP4Boxes.fullBox("saiz", [uniform ? sizes.first ?? 8 : 0] + MP4Boxes.bytes(UInt32(samples.count)) + (uniform ? [] : sizes))
        return (MP4Boxes.fullBox("senc", flags: usesSubsamples ? 0x2 : 0, senc), saiz)
    }
}
