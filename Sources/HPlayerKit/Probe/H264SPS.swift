/// The fields of an H.264 sequence parameter set that `hplayer probe` shows and a raw stream's
/// pacing needs (ITU-T H.264 7.3.2.1.1 and E.1.1), read with our own bit reader.
package struct H264SPS: Codable, Equatable, Sendable {
    package var profileIDC: Int
    /// constraint_set0_flag … constraint_set5_flag and the reserved bits, as one byte.
    package var constraintFlags: Int
    package var levelIDC: Int
    package var id: Int
    package var chromaFormatIDC: Int
    package var bitDepthLuma: Int
    /// The picture's size after the cropping window.
    package var width: Int
    package var height: Int
    /// time_scale / (2 × num_units_in_tick) from the VUI's timing information, when present.
    package var frameRate: Double?

    /// The SPS in `nal` (the NAL unit, header byte first); nil when it is not one or is cut short.
    package static func parse(_ nal: ArraySlice<UInt8>) -> H264SPS? {
        guard let header = nal.first, header & 0x1F == 7 else { return nil }
        var bits = BitReader(RBSP.unescaped(nal.dropFirst()))
        guard let profile = bits.read(8), let constraints = bits.read(8), let level = bits.read(8), let id = bits.ue() else { return nil }
        var chroma = 1
        var bitDepth = 8
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) {
            guard let format = bits.ue() else { return nil }
            chroma = format
            if chroma == 3 { guard bits.read(1) != nil else { return nil } }
            guard let depthLuma = bits.ue(), bits.ue() != nil, bits.read(1) != nil, let scalingPresent = bits.read(1) else { return nil }
            bitDepth = depthLuma + 8
            if scalingPresent == 1 {
                for list in 0..<(chroma == 3 ? 12 : 8) {
                    guard let present = bits.read(1) else { return nil }
                    if present == 1, !bits.skipScalingList(size: list < 6 ? 16 : 64) { return nil }
                }
            }
        }
        guard bits.ue() != nil, let pocType = bits.ue() else { return nil }  // log2_max_frame_num_minus4
        if pocType == 0 {
            guard bits.ue() != nil else { return nil }
        } else if pocType == 1 {
            guard bits.read(1) != nil, bits.se() != nil, bits.se() != nil, let cycle = bits.ue(), cycle <= 255 else { return nil }
            for _ in 0..<cycle { guard bits.se() != nil else { return nil } }
        }
        guard bits.ue() != nil, bits.read(1) != nil,  // max_num_ref_frames, gaps_in_frame_num_allowed_flag
              let widthInMbs = bits.ue(), let heightInMapUnits = bits.ue(), let frameMbsOnly = bits.read(1) else { return nil }
        if frameMbsOnly == 0 { guard bits.read(1) != nil else { return nil } }
        guard bits.read(1) != nil, let cropping = bits.read(1) else { return nil }  // direct_8x8_inference_flag
        var crop = (left: 0, right: 0, top: 0, bottom: 0)
        if cropping == 1 {
            guard let left = bits.ue(), let right = bits.ue(), let top = bits.ue(), let bottom = bits.ue() else { return nil }
            crop = (left, right, top, bottom)
        }
        let cropUnitX = chroma == 1 || chroma == 2 ? 2 : 1
        let cropUnitY = (chroma == 1 ? 2 : 1) * (2 - frameMbsOnly)
        let width = (widthInMbs + 1) * 16 - cropUnitX * (crop.left + crop.right)
        let height = (heightInMapUnits + 1) * 16 * (2 - frameMbsOnly) - cropUnitY * (crop.top + crop.bottom)
        guard width > 0, height > 0 else { return nil }
        var sps = H264SPS(profileIDC: profile, constraintFlags: constraints, levelIDC: level, id: id, chromaFormatIDC: chroma,
                          bitDepthLuma: bitDepth, width: width, height: height, frameRate: nil)
        sps.frameRate = bits.vuiFrameRate()
        return sps
    }
}

/// NAL unit payloads without their emulation-prevention bytes (00 00 03 → 00 00).
enum RBSP {
    static func unescaped(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var zeros = 0
        for byte in bytes {
            if zeros >= 2, byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            output.append(byte)
        }
        return output
    }
}

/// Reads bits most significant first, with Exp-Golomb codes; nil past the end.
struct BitReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func read(_ count: Int) -> Int? {
        guard count <= 32, position + count <= bytes.count * 8 else { return nil }
        var value = 0
        for _ in 0..<count {
            value = value << 1 | Int(bytes[position / 8] >> (7 - position % 8) & 1)
            position += 1
        }
        return value
    }

    /// ue(v).
    mutating func ue() -> Int? {
        var zeros = 0
        while true {
            guard let bit = read(1) else { return nil }
            if bit == 1 { break }
            zeros += 1
            guard zeros < 32 else { return nil }
        }
        guard let rest = read(zeros) else { return nil }
        return (1 << zeros) - 1 + rest
    }

    /// se(v).
    mutating func se() -> Int? {
        guard let code = ue() else { return nil }
        return code % 2 == 1 ? (code + 1) / 2 : -(code / 2)
    }

    /// Skips a scaling_list() of `size` entries (7.3.2.1.1.1); false when cut short.
    mutating func skipScalingList(size: Int) -> Bool {
        var last = 8
        var next = 8
        for _ in 0..<size where next != 0 {
            guard let delta = se() else { return false }
            next = (last + delta + 256) % 256
            if next != 0 { last = next }
        }
        return true
    }

    /// The frame rate in vui_parameters() when it has timing information (E.1.1).
    mutating func vuiFrameRate() -> Double? {
        guard read(1) == 1, skipVUIDescription(), let tick = vuiTiming() else { return nil }  // vui_parameters_present_flag
        return Double(tick.timeScale) / Double(2 * tick.unitsInTick)
    }

    /// Skips what H.264's VUI and HEVC's (E.2.1) begin with: the aspect ratio, overscan, video
    /// signal type and chroma location; false when cut short.
    mutating func skipVUIDescription() -> Bool {
        if read(1) == 1, let idc = read(8), idc == 255 { guard read(32) != nil else { return false } }  // extended SAR
        if read(1) == 1 { guard read(1) != nil else { return false } }  // overscan
        if read(1) == 1 {  // video signal type
            guard read(4) != nil else { return false }
            if read(1) == 1 { guard read(24) != nil else { return false } }
        }
        if read(1) == 1 { guard ue() != nil, ue() != nil else { return false } }  // chroma location
        return true
    }

    /// timing_info_present_flag and, when set, num_units_in_tick and time_scale.
    mutating func vuiTiming() -> (unitsInTick: Int, timeScale: Int)? {
        guard read(1) == 1, let unitsInTick = read(32), let timeScale = read(32), unitsInTick > 0 else { return nil }
        return (unitsInTick, timeScale)
    }
}
