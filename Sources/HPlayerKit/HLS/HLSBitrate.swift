/// Which variant of a master playlist plays: `--hls-bitrate`, as mpv's, and our default. Set it
/// as `NetworkOptions.hlsBitrate`.
public enum HLSBitrate: Equatable, Sendable {
    /// The default: the first segment from the lowest variant, then each next segment's variant
    /// as the bitrate policy (`--hls-abr`, ABRPolicy) picks it.
    case auto
    /// The variant of the highest bandwidth, throughout.
    case max
    /// The variant of the lowest bandwidth, throughout.
    case min
    /// The highest variant at or below this many bits per second (the lowest when none is).
    case atMost(Int)

    /// "max", "min" or a number of bits per second; nil for anything else.
    public init?(_ text: String) {
        switch text {
        case "auto": self = .auto
        case "max": self = .max
        case "min": self = .min
        default:
            guard let bits = Int(text), bits > 0 else { return nil }
            self = .atMost(bits)
        }
    }

    /// The index in `variants` to play (nil: none). `auto` starts from the lowest variant with
    /// a picture: an audio-only one would leave the stream without video from its probe on.
    func choose(among variants: [HLSVariant]) -> Int? {
        let byBandwidth = variants.indices.sorted { variants[$0].bandwidth < variants[$1].bandwidth }
        switch self {
        case .max: return byBandwidth.last
        case .min: return byBandwidth.first
        case .auto: return Self.interchangeable(with: nil, among: variants).first ?? byBandwidth.first
        case let .atMost(bits): return byBandwidth.last { variants[$0].bandwidth <= bits } ?? byBandwidth.first
        }
    }

    /// Where a segment that `failed` cannot give comes from: the next lower variant that can
    /// follow it, else the next higher; nil when there is none.
    static func alternate(to failed: Int, among variants: [HLSVariant], renditions: [HLSRendition] = []) -> Int? {
        let candidates = interchangeable(with: failed, among: variants, renditions: renditions)
        guard let rank = candidates.firstIndex(of: failed), candidates.count > 1 else { return nil }
        return rank > 0 ? candidates[rank - 1] : candidates[rank + 1]
    }

    /// The variants, by bandwidth, whose segments can follow `reference`'s in one stream: those
    /// with a picture (CODECS not all audio), the same sound (the same AUDIO group, its rendition
    /// playing on unchanged, or groups of separate renditions on both sides, the sound following
    /// to the other group's rendition of its language) and, where both declare it, the same
    /// video codec. nil: every variant with a picture.
    static func interchangeable(with reference: Int?, among variants: [HLSVariant], renditions: [HLSRendition] = []) -> [Int] {
        let byBandwidth = variants.indices.sorted { variants[$0].bandwidth < variants[$1].bandwidth }
        let referenceCodec = reference.flatMap { videoCodec(of: variants[$0]) }
        let master = HLSMasterPlaylist(variants: variants, renditions: renditions)
        return byBandwidth.filter { index in
            guard index != reference else { return true }
            if let reference, variants[index].audioGroup != variants[reference].audioGroup,
               !(master.hasSeparateAudio(variants[index]) && master.hasSeparateAudio(variants[reference])) { return false }
            let codecs = variants[index].codecs
            guard codecs.isEmpty || videoCodec(of: variants[index]) != nil else { return false }
            guard let referenceCodec, let codec = videoCodec(of: variants[index]) else { return true }
            return codec == referenceCodec
        }
    }

    /// The video codec family a variant declares ("avc1" for avc1.64001f), if any.
    static func videoCodec(of variant: HLSVariant) -> String? {
        let audio = ["mp4a", "ac-3", "ec-3", "opus", "flac", "fLaC", "mp3", "alac"]
        return variant.codecs.lazy.map { String($0.prefix { $0 != "." }) }.first { !audio.contains($0) && !$0.hasPrefix("stpp") && !$0.hasPrefix("wvtt") }
    }
}
