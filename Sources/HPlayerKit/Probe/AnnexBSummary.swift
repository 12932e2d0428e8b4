import Glibc

/// What `hplayer probe` reads in a raw H.264 stream with our own parser: the NAL unit types
/// seen, each SPS, and where the IDR pictures are. For debugging an encoder.
public struct AnnexBSummary: Codable, Equatable, Sendable {
    public struct UnitCount: Codable, Equatable, Sendable {
        public var type: Int
        public var name: String
        public var count: Int
    }

    public struct IDR: Codable, Equatable, Sendable {
        /// The picture's number in decode order, from 0.
        public var picture: Int
        /// The byte offset of its first slice's NAL unit (its start code).
        public var offset: Int
    }

    public var units: [UnitCount]
    public var parameterSets: [H264SPS]
    public var pictures: Int
    public var idrs: [IDR]

    /// The NAL unit type names of ITU-T H.264 table 7-1.
    static let names = [1: "slice", 2: "slice data A", 3: "slice data B", 4: "slice data C", 5: "IDR slice", 6: "SEI", 7: "SPS",
                        8: "PPS", 9: "access unit delimiter", 10: "end of sequence", 11: "end of stream", 12: "filler",
                        13: "SPS extension", 14: "prefix", 15: "subset SPS", 19: "auxiliary slice", 20: "slice extension"]

    public init(bytes: [UInt8]) {
        var counts: [Int: Int] = [:]
        var parameterSets: [H264SPS] = []
        var pictures = 0
        var idrs: [IDR] = []
        for unit in AnnexB.nalUnits(in: bytes) {
            counts[unit.type, default: 0] += 1
            switch unit.type {
            case AnnexB.H264Type.sps:
                if let sps = H264SPS.parse(bytes[unit.range]), !parameterSets.contains(sps) { parameterSets.append(sps) }
            case AnnexB.H264Type.slice, AnnexB.H264Type.idrSlice:
                // first_mb_in_slice is ue(v) 0, a single 1 bit, in a picture's first slice.
                guard unit.range.count > 1, bytes[unit.range.lowerBound + 1] & 0x80 != 0 else { continue }
                if unit.type == AnnexB.H264Type.idrSlice {
                    let startCode = unit.range.lowerBound >= 4 && bytes[unit.range.lowerBound - 4] == 0 ? 4 : 3
                    idrs.append(IDR(picture: pictures, offset: unit.range.lowerBound - startCode))
                }
                pictures += 1
            default:
                break
            }
        }
        units = counts.keys.sorted().map { UnitCount(type: $0, name: Self.names[$0] ?? "type \($0)", count: counts[$0]!) }
        self.parameterSets = parameterSets
        self.pictures = pictures
        self.idrs = idrs
    }

    /// The summary of the raw H.264 file at `path` (at most `limit` bytes of it); nil when it
    /// cannot be read.
    public static func read(path: String, limit: Int = 256 << 20) -> AnnexBSummary? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while bytes.count < limit {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes += chunk[..<count]
        }
        return AnnexBSummary(bytes: bytes)
    }
}
