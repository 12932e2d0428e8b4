/// Which variant of a master playlist plays: `--hls-bitrate`, as mpv's, and our default.
public enum HLSBitrate: Equatable, Sendable {
    /// The default: the first segment from the lowest variant, then the highest variant the
    /// throughput of that first fetch sustains (`sustainable`), kept from there on.
    case auto
    case max
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

    /// The index in `variants` to play (nil: none).
    func choose(among variants: [HLSVariant]) -> Int? {
        let byBandwidth = variants.indices.sorted { variants[$0].bandwidth < variants[$1].bandwidth }
        switch self {
        case .max: return byBandwidth.last
        case .min, .auto: return byBandwidth.first
        case let .atMost(bits): return byBandwidth.last { variants[$0].bandwidth <= bits } ?? byBandwidth.first
        }
    }

    /// A measured throughput only partly goes to the stream: the rest is headroom for its
    /// variation and the network's.
    static let throughputShare = 0.8

    /// The highest variant whose declared bandwidth fits in `throughputShare` of `throughput`
    /// (bits per second); the lowest when none does.
    static func sustainable(among variants: [HLSVariant], throughput: Double) -> Int? {
        let byBandwidth = variants.indices.sorted { variants[$0].bandwidth < variants[$1].bandwidth }
        return byBandwidth.last { Double(variants[$0].bandwidth) <= throughput * throughputShare } ?? byBandwidth.first
    }

    /// Where a segment that `failed` cannot give comes from: the next lower variant, else the
    /// next higher; nil with one variant.
    static func alternate(to failed: Int, among variants: [HLSVariant]) -> Int? {
        let byBandwidth = variants.indices.sorted { variants[$0].bandwidth < variants[$1].bandwidth }
        guard let rank = byBandwidth.firstIndex(of: failed), byBandwidth.count > 1 else { return nil }
        return rank > 0 ? byBandwidth[rank - 1] : byBandwidth[rank + 1]
    }
}
