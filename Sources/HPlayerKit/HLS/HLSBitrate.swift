/// Which variant of a master playlist plays: `--hls-bitrate`, as mpv's.
public enum HLSBitrate: Equatable, Sendable {
    case max
    case min
    /// The highest variant at or below this many bits per second (the lowest when none is).
    case atMost(Int)

    /// "max", "min" or a number of bits per second; nil for anything else.
    public init?(_ text: String) {
        switch text {
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
        case .min: return byBandwidth.first
        case let .atMost(bits): return byBandwidth.last { variants[$0].bandwidth <= bits } ?? byBandwidth.first
        }
    }
}
