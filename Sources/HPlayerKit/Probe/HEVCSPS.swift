/// The fields of an HEVC sequence parameter set that `hplayer probe` shows (ITU-T H.265
/// 7.3.2.2.1 and E.2.1), read with our own bit reader. Reaching the VUI's timing means walking
/// every field before it, the short-term reference picture sets included.
package struct HEVCSPS: Codable, Equatable, Sendable {
    /// general_profile_idc: 1 Main, 2 Main 10, 3 Main Still Picture, 4 range extensions.
    package var profileIDC: Int
    /// general_tier_flag: 0 Main tier, 1 High tier.
    package var tier: Int
    /// general_level_idc: 30 times the level number.
    package var levelIDC: Int
    package var id: Int
    package var chromaFormatIDC: Int
    package var bitDepthLuma: Int
    /// The picture's size after the conformance window.
    package var width: Int
    package var height: Int
    /// vui_time_scale / vui_num_units_in_tick, when the VUI has timing information.
    package var frameRate: Double?

    /// The SPS in `nal` (the NAL unit, its two header bytes first); nil when it is not one or
    /// is cut short.
    package static func parse(_ nal: ArraySlice<UInt8>) -> HEVCSPS? {
        guard nal.count > 2, let header = nal.first, (header >> 1) & 0x3F == 33 else { return nil }
        var bits = BitReader(RBSP.unescaped(nal.dropFirst(2)))
        guard bits.read(4) != nil, let maxSubLayersMinus1 = bits.read(3), bits.read(1) != nil,
              let general = bits.profileTierLevel(maxSubLayersMinus1: maxSubLayersMinus1),
              let id = bits.ue(), let chroma = bits.ue() else { return nil }
        if chroma == 3 { guard bits.read(1) != nil else { return nil } }  // separate_colour_plane_flag
        guard let codedWidth = bits.ue(), let codedHeight = bits.ue(), let windowed = bits.read(1) else { return nil }
        var window = (left: 0, right: 0, top: 0, bottom: 0)
        if windowed == 1 {
            guard let left = bits.ue(), let right = bits.ue(), let top = bits.ue(), let bottom = bits.ue() else { return nil }
            window = (left, right, top, bottom)
        }
        guard let depthLuma = bits.ue(), bits.ue() != nil, let pocBitsMinus4 = bits.ue(), pocBitsMinus4 <= 12,
              let orderingForAll = bits.read(1) else { return nil }
        for _ in (orderingForAll == 1 ? 0 : maxSubLayersMinus1)...maxSubLayersMinus1 {
            guard bits.ue() != nil, bits.ue() != nil, bits.ue() != nil else { return nil }
        }
        // Coding and transform block sizes, transform hierarchy depths.
        for _ in 0..<6 { guard bits.ue() != nil else { return nil } }
        guard let scaling = bits.read(1) else { return nil }
        if scaling == 1 {
            guard let present = bits.read(1) else { return nil }
            if present == 1, !bits.skipHEVCScalingListData() { return nil }
        }
        guard bits.read(2) != nil, let pcm = bits.read(1) else { return nil }  // amp, sample_adaptive_offset
        if pcm == 1 { guard bits.read(8) != nil, bits.ue() != nil, bits.ue() != nil, bits.read(1) != nil else { return nil } }
        guard let setCount = bits.ue(), setCount <= 64, bits.skipShortTermReferenceSets(count: setCount),
              let longTerm = bits.read(1) else { return nil }
        if longTerm == 1 {
            guard let count = bits.ue(), count <= 32 else { return nil }
            for _ in 0..<count { guard bits.read(pocBitsMinus4 + 4) != nil, bits.read(1) != nil else { return nil } }
        }
        guard bits.read(2) != nil else { return nil }  // temporal MVP, strong intra smoothing
        let unitX = chroma == 1 || chroma == 2 ? 2 : 1
        let unitY = chroma == 1 ? 2 : 1
        let width = codedWidth - unitX * (window.left + window.right)
        let height = codedHeight - unitY * (window.top + window.bottom)
        guard width > 0, height > 0 else { return nil }
        return HEVCSPS(profileIDC: general.profile, tier: general.tier, levelIDC: general.level, id: id, chromaFormatIDC: chroma,
                       bitDepthLuma: depthLuma + 8, width: width, height: height, frameRate: bits.hevcVUIFrameRate())
    }
}

extension BitReader {
    /// profile_tier_level(1, maxSubLayersMinus1) (7.3.3): the general profile, tier and level.
    mutating func profileTierLevel(maxSubLayersMinus1: Int) -> (profile: Int, tier: Int, level: Int)? {
        guard read(2) != nil, let tier = read(1), let profile = read(5),
              read(32) != nil, read(32) != nil, read(16) != nil,  // compatibility flags, constraint flags
              let level = read(8) else { return nil }
        var profilePresent: [Bool] = []
        var levelPresent: [Bool] = []
        for _ in 0..<maxSubLayersMinus1 {
            guard let hasProfile = read(1), let hasLevel = read(1) else { return nil }
            profilePresent.append(hasProfile == 1)
            levelPresent.append(hasLevel == 1)
        }
        if maxSubLayersMinus1 > 0 { guard read(2 * (8 - maxSubLayersMinus1)) != nil else { return nil } }
        for layer in 0..<maxSubLayersMinus1 {
            if profilePresent[layer] { guard read(32) != nil, read(32) != nil, read(24) != nil else { return nil } }
            if levelPresent[layer] { guard read(8) != nil else { return nil } }
        }
        return (profile, tier, level)
    }

    /// Skips scaling_list_data() (7.3.4); false when cut short.
    mutating func skipHEVCScalingListData() -> Bool {
        for size in 0..<4 {
            for _ in stride(from: 0, to: 6, by: size == 3 ? 3 : 1) {
                guard let predicted = read(1) else { return false }
                if predicted == 0 {
                    guard ue() != nil else { return false }  // scaling_list_pred_matrix_id_delta
                    continue
                }
                if size > 1 { guard se() != nil else { return false } }  // scaling_list_dc_coef_minus8
                for _ in 0..<min(64, 1 << (4 + (size << 1))) { guard se() != nil else { return false } }
            }
        }
        return true
    }

    /// Skips the SPS's `count` st_ref_pic_set()s (7.3.7). A set may be predicted from the one
    /// before it, so how many flags it has depends on how many pictures that one refers to.
    mutating func skipShortTermReferenceSets(count: Int) -> Bool {
        var pictureCounts: [Int] = []
        for index in 0..<count {
            let predicted = index > 0 ? read(1) : 0
            guard let predicted else { return false }
            if predicted == 1 {
                guard read(1) != nil, ue() != nil else { return false }  // delta_rps_sign, abs_delta_rps_minus1
                var pictures = 0
                for _ in 0...pictureCounts[index - 1] {
                    guard let used = read(1) else { return false }
                    // use_delta_flag is read only for a picture not used, and is 1 otherwise.
                    let kept = used == 1 ? 1 : read(1)
                    guard let kept else { return false }
                    pictures += kept
                }
                pictureCounts.append(pictures)
            } else {
                guard let negative = ue(), let positive = ue(), negative <= 16, positive <= 16 else { return false }
                for _ in 0..<(negative + positive) { guard ue() != nil, read(1) != nil else { return false } }
                pictureCounts.append(negative + positive)
            }
        }
        return true
    }

    /// The frame rate in an HEVC vui_parameters() (E.2.1) when it has timing information.
    mutating func hevcVUIFrameRate() -> Double? {
        guard read(1) == 1, skipVUIDescription() else { return nil }  // vui_parameters_present_flag
        guard read(3) != nil else { return nil }  // neutral chroma, field_seq, frame_field_info
        if read(1) == 1 { for _ in 0..<4 { guard ue() != nil else { return nil } } }  // default display window
        guard let tick = vuiTiming() else { return nil }
        return Double(tick.timeScale) / Double(tick.unitsInTick)
    }
}
