/// Where an MPEG-TS segment's pictures can be decoded from, read from its bytes: a segment
/// switched to at a boundary must start with a key frame, or its first pictures are decoded from
/// the last key frame of the segment before. Pure: the PAT names the PMT, the PMT the video
/// stream (H.264 or HEVC), and a PES of that stream is a key frame when its adaptation field
/// says random access, or its access unit holds an IDR (H.264) or IRAP (HEVC) picture.
package enum SegmentKeyFrame {
    static let packetSize = 188
    /// Enough of a PES to find its picture's first slice: past the access unit delimiter,
    /// parameter sets and SEI (x264's names its settings in a few hundred bytes).
    static let pictureHeadLimit = 8192

    /// true or false for an MPEG-TS segment with H.264 or HEVC video; nil where it cannot tell
    /// (not MPEG-TS, no such video, or cut short).
    package static func startsWithKeyFrame(_ bytes: [UInt8]) -> Bool? {
        guard let scan = scan(bytes, firstPictureOnly: true), let video = scan.video, let first = scan.pictures.first else { return nil }
        return first.randomAccess ? true : containsKeyFrame(pes: first.head, isHEVC: video.isHEVC, isCut: first.isCut)
    }

    /// The segment's video from its last key frame on, to decode the next segment's first
    /// pictures from: its PAT and PMT, then the packets of its video stream from that picture's
    /// first. nil where it has no key frame, or is not MPEG-TS with H.264 or HEVC video.
    package static func videoFromLastKeyFrame(_ bytes: [UInt8]) -> [UInt8]? {
        guard let scan = scan(bytes, firstPictureOnly: false), let video = scan.video,
              let key = scan.pictures.last(where: { $0.randomAccess || containsKeyFrame(pes: $0.head, isHEVC: video.isHEVC, isCut: $0.isCut) == true })
        else { return nil }
        var result: [UInt8] = []
        for offset in scan.tables { result += bytes[offset..<(offset + packetSize)] }
        var offset = key.offset
        while offset + packetSize <= bytes.count {
            if pid(at: offset, in: bytes) == video.pid { result += bytes[offset..<(offset + packetSize)] }
            offset += packetSize
        }
        return result
    }

    /// A PES of the video stream: the offset of its first packet, its random access flag, and
    /// the start of its bytes.
    private struct Picture {
        let offset: Int
        let randomAccess: Bool
        var head: [UInt8] = []
        /// Whether the PES goes on past `head`.
        var isCut = false
    }

    /// What a segment's packets say: the offsets of its first PAT and PMT, its video stream,
    /// and that stream's PES packets in order.
    private struct Scan {
        var tables: [Int] = []
        var video: (pid: Int, isHEVC: Bool)?
        var pictures: [Picture] = []
    }

    private static func pid(at offset: Int, in bytes: [UInt8]) -> Int {
        Int(bytes[offset + 1] & 0x1F) << 8 | Int(bytes[offset + 2])
    }

    /// nil where the bytes are not MPEG-TS; `firstPictureOnly` stops at the second PES.
    private static func scan(_ bytes: [UInt8], firstPictureOnly: Bool) -> Scan? {
        guard bytes.count >= packetSize, bytes[0] == 0x47 else { return nil }
        var scan = Scan()
        var pmtPID: Int?
        var offset = 0
        while offset + packetSize <= bytes.count {
            defer { offset += packetSize }
            guard bytes[offset] == 0x47 else { return nil }
            let pid = pid(at: offset, in: bytes)
            let unitStart = bytes[offset + 1] & 0x40 != 0
            let control = (bytes[offset + 3] >> 4) & 0x3
            var start = offset + 4
            var randomAccess = false
            if control & 0x2 != 0 {
                let length = Int(bytes[start])
                if length > 0, start + 1 < offset + packetSize { randomAccess = bytes[start + 1] & 0x40 != 0 }
                start += 1 + length
            }
            guard control & 0x1 != 0, start < offset + packetSize else { continue }
            let body = bytes[start..<(offset + packetSize)]
            if pid == 0, unitStart, pmtPID == nil {
                pmtPID = programMapPID(inSection: Array(body))
                scan.tables.append(offset)
            } else if pid == pmtPID, unitStart, scan.video == nil {
                scan.video = videoStream(inSection: Array(body))
                scan.tables.append(offset)
            } else if let video = scan.video, pid == video.pid {
                if unitStart {
                    if firstPictureOnly, !scan.pictures.isEmpty { break }
                    scan.pictures.append(Picture(offset: offset, randomAccess: randomAccess))
                }
                guard !scan.pictures.isEmpty else { continue }
                guard scan.pictures[scan.pictures.count - 1].head.count < pictureHeadLimit else {
                    scan.pictures[scan.pictures.count - 1].isCut = true
                    continue
                }
                scan.pictures[scan.pictures.count - 1].head += body
            }
        }
        return scan
    }

    /// The PAT's first program's PMT PID.
    private static func programMapPID(inSection body: [UInt8]) -> Int? {
        let section = Int(body.first ?? 0) + 1  // past the pointer field
        // table id, length (2), stream id (2), version, section number, last section: 8 bytes; then programs.
        var index = section + 8
        while index + 4 <= body.count {
            let program = Int(body[index]) << 8 | Int(body[index + 1])
            let pid = Int(body[index + 2] & 0x1F) << 8 | Int(body[index + 3])
            if program != 0 { return pid }
            index += 4
        }
        return nil
    }

    /// The PMT's H.264 (stream type 0x1B) or HEVC (0x24) stream.
    private static func videoStream(inSection body: [UInt8]) -> (pid: Int, isHEVC: Bool)? {
        let section = Int(body.first ?? 0) + 1
        guard section + 12 <= body.count else { return nil }
        let sectionLength = Int(body[section + 1] & 0x0F) << 8 | Int(body[section + 2])
        let end = min(body.count, section + 3 + sectionLength - 4)  // less the CRC
        let programInfoLength = Int(body[section + 10] & 0x0F) << 8 | Int(body[section + 11])
        var index = section + 12 + programInfoLength
        while index + 5 <= end {
            let type = body[index]
            let pid = Int(body[index + 1] & 0x1F) << 8 | Int(body[index + 2])
            if type == 0x1B || type == 0x24 { return (pid, type == 0x24) }
            index += 5 + (Int(body[index + 3] & 0x0F) << 8 | Int(body[index + 4]))
        }
        return nil
    }

    /// Whether the PES packet's access unit holds an IDR (H.264, NAL type 5) or IRAP (HEVC,
    /// types 16 to 23) picture; nil where `pes` is not a PES, or is cut (`isCut`) before its
    /// first slice.
    private static func containsKeyFrame(pes: [UInt8], isHEVC: Bool, isCut: Bool) -> Bool? {
        guard pes.count > 9, pes[0] == 0, pes[1] == 0, pes[2] == 1 else { return nil }
        var index = 9 + Int(pes[8])
        while index + 3 < pes.count {
            if pes[index] == 0, pes[index + 1] == 0, pes[index + 2] == 1 {
                let header = pes[index + 3]
                let type = isHEVC ? Int(header >> 1) & 0x3F : Int(header) & 0x1F
                if isHEVC ? (16...23).contains(type) : type == 5 { return true }
                // A slice of another picture: this access unit starts none.
                if isHEVC ? type < 16 : (1...4).contains(type) { return false }
                index += 3
            } else {
                index += 1
            }
        }
        return isCut ? nil : false
    }
}
