import Glibc

/// What `hplayer probe` reads in a raw H.264 or HEVC stream with our own parser: the NAL unit
/// types seen, each SPS, and where the IDR pictures are. For debugging an encoder.
package struct AnnexBSummary: Codable, Equatable, Sendable {
    package enum Codec: String, Codable, Sendable {
        case h264, hevc
    }

    package struct UnitCount: Codable, Equatable, Sendable {
        package var type: Int
        package var name: String
        package var count: Int
    }

    package struct IDR: Codable, Equatable, Sendable {
        /// The picture's number in decode order, from 0.
        package var picture: Int
        /// The byte offset of its first slice's NAL unit (its start code).
        package var offset: Int
    }

    package var codec: Codec
    package var units: [UnitCount]
    /// H.264's sequence parameter sets; HEVC's are in `hevcParameterSets`.
    package var parameterSets: [H264SPS] = []
    package var hevcParameterSets: [HEVCSPS] = []
    package var pictures: Int
    /// The IDR pictures (HEVC's IDR_W_RADL and IDR_N_LP; its CRA and BLA pictures are counted
    /// among the NAL units only).
    package var idrs: [IDR]

    /// The NAL unit type names of ITU-T H.264 table 7-1.
    static let h264Names = [1: "slice", 2: "slice data A", 3: "slice data B", 4: "slice data C", 5: "IDR slice", 6: "SEI", 7: "SPS",
                            8: "PPS", 9: "access unit delimiter", 10: "end of sequence", 11: "end of stream", 12: "filler",
                            13: "SPS extension", 14: "prefix", 15: "subset SPS", 19: "auxiliary slice", 20: "slice extension"]
    /// The NAL unit type names of ITU-T H.265 table 7-1.
    static let hevcNames = [0: "TRAIL_N", 1: "TRAIL_R", 2: "TSA_N", 3: "TSA_R", 4: "STSA_N", 5: "STSA_R", 6: "RADL_N", 7: "RADL_R",
                            8: "RASL_N", 9: "RASL_R", 16: "BLA_W_LP", 17: "BLA_W_RADL", 18: "BLA_N_LP", 19: "IDR_W_RADL",
                            20: "IDR_N_LP", 21: "CRA", 32: "VPS", 33: "SPS", 34: "PPS", 35: "access unit delimiter",
                            36: "end of sequence", 37: "end of bitstream", 38: "filler", 39: "prefix SEI", 40: "suffix SEI"]

    package init(bytes: [UInt8], codec: Codec = .h264) {
        self.codec = codec
        var counts: [Int: Int] = [:]
        var pictures = 0
        var idrs: [IDR] = []
        for unit in AnnexB.nalUnits(in: bytes) {
            let first = unit.range.lowerBound
            // HEVC's type is 6 bits after a forbidden bit, in a header of two bytes.
            let type = codec == .h264 ? unit.type : Int(bytes[first] >> 1) & 0x3F
            counts[type, default: 0] += 1
            let isSlice: Bool
            let isIDR: Bool
            switch codec {
            case .h264:
                if type == AnnexB.H264Type.sps, let sps = H264SPS.parse(bytes[unit.range]), !parameterSets.contains(sps) {
                    parameterSets.append(sps)
                }
                // first_mb_in_slice is ue(v) 0, a single 1 bit, in a picture's first slice.
                isSlice = (type == AnnexB.H264Type.slice || type == AnnexB.H264Type.idrSlice) && unit.range.count > 1
                    && bytes[first + 1] & 0x80 != 0
                isIDR = type == AnnexB.H264Type.idrSlice
            case .hevc:
                // Units of other layers (nuh_layer_id > 0: multi-view, scalable) have their own syntax.
                let isBaseLayer = unit.range.count > 2 && (bytes[first] & 1) == 0 && bytes[first + 1] >> 3 == 0
                if isBaseLayer, type == 33, let sps = HEVCSPS.parse(bytes[unit.range]), !hevcParameterSets.contains(sps) {
                    hevcParameterSets.append(sps)
                }
                // Types below 32 are slices; first_slice_segment_in_pic_flag opens the payload.
                isSlice = isBaseLayer && type < 32 && bytes[first + 2] & 0x80 != 0
                isIDR = type == 19 || type == 20
            }
            guard isSlice else { continue }
            if isIDR {
                let startCode = first >= 4 && bytes[first - 4] == 0 ? 4 : 3
                idrs.append(IDR(picture: pictures, offset: first - startCode))
            }
            pictures += 1
        }
        let names = codec == .h264 ? Self.h264Names : Self.hevcNames
        units = counts.keys.sorted().map { UnitCount(type: $0, name: names[$0] ?? "type \($0)", count: counts[$0]!) }
        self.pictures = pictures
        self.idrs = idrs
    }

    /// The summary of the raw H.264 or HEVC file at `path` (at most `limit` bytes of it); nil
    /// when it cannot be read.
    package static func read(path: String, codec: Codec, limit: Int = 256 << 20) -> AnnexBSummary? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while bytes.count < limit {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes += chunk[..<count]
        }
        return AnnexBSummary(bytes: bytes, codec: codec)
    }
}
