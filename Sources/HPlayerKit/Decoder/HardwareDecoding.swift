import CFFmpeg

/// A hardware decoding API, by mpv's `--hwdec` names.
public enum HardwareAPI: String, CaseIterable, Sendable {
    /// VA-API: Intel, AMD.
    case vaapi
    /// VDPAU: older NVIDIA and AMD drivers.
    case vdpau
    /// NVIDIA's NVDEC, through a CUDA device.
    case nvdec
    /// NVIDIA, as `nvdec`: both open a CUDA device.
    case cuda
    /// Vulkan video.
    case vulkan

    /// libavutil's device type: NVDEC is reached through a CUDA device.
    var deviceType: AVHWDeviceType {
        switch self {
        case .vaapi: AV_HWDEVICE_TYPE_VAAPI
        case .vdpau: AV_HWDEVICE_TYPE_VDPAU
        case .nvdec, .cuda: AV_HWDEVICE_TYPE_CUDA
        case .vulkan: AV_HWDEVICE_TYPE_VULKAN
        }
    }
}

/// mpv's `--hwdec`: no (the default, as mpv's), auto, or one API.
/// Set it as `SourceOptions.hardwareDecoding`.
public enum HardwareDecoding: Equatable, Sendable, CustomStringConvertible {
    /// Software decoding.
    case no
    /// The first API that opens, of NVDEC, VA-API and VDPAU; software where none does.
    case auto
    /// This API, or software where it does not open.
    case api(HardwareAPI)

    /// The order `auto` tries: NVIDIA's, then VA-API (Intel, AMD), then VDPAU, as mpv's auto.
    static let autoOrder: [HardwareAPI] = [.nvdec, .vaapi, .vdpau]

    /// Reads `--hwdec`'s values: "no", "auto" (or "yes", "auto-safe"), or an API's name; nil
    /// for anything else.
    public init?(_ text: String) {
        switch text {
        case "no": self = .no
        case "auto", "yes", "auto-safe": self = .auto
        default:
            guard let api = HardwareAPI(rawValue: text) else { return nil }
            self = .api(api)
        }
    }

    /// The APIs to try, in order.
    var candidates: [HardwareAPI] {
        switch self {
        case .no: []
        case .auto: Self.autoOrder
        case .api(let api): [api]
        }
    }

    /// The `--hwdec` value that reads back as this.
    public var description: String {
        switch self {
        case .no: "no"
        case .auto: "auto"
        case .api(let api): api.rawValue
        }
    }

    /// Every `--hwdec` value `init?(_:)` takes, but the aliases of "auto".
    public static let names = ["no", "auto"] + HardwareAPI.allCases.map(\.rawValue)
}

/// Makes a video track's decoder: a hardware one (with a software fallback) where `--hwdec`
/// asks and one opens, else FFmpeg's software decoder, with one line saying why not.
enum VideoDecoderFactory {
    /// - Parameter threads: mpv's `--vd-lavc-threads`: 0 is, in software, the fewest that keep up
    ///   when `sizedTo` is given (and not `slicesOnly`), else libavcodec's one per core; on a GPU,
    ///   `HardwareDecoder.defaultThreads`.
    ///   - sizedTo: real-time playback with the threads left to us: software decoding starts with
    ///     the fewest threads the stream needs at this rate, and grows (ThreadSizedDecoder).
    static func make(stream: UnsafeMutablePointer<AVStream>, hardware: HardwareDecoding, input: String,
                     threads: Int = 0, slicesOnly: Bool = false, sizedTo rate: PlaybackRate? = nil) throws(MediaError) -> Decoder {
        guard hardware != .no else {
            if let rate, threads == 0, !slicesOnly {
                return try ThreadSizedDecoder(stream: stream, input: input, rate: rate, cores: Int(av_cpu_count()))
            }
            return try SoftwareDecoder(stream: stream, threads: threads, slicesOnly: slicesOnly)
        }
        var refusals: [String] = []
        for api in hardware.candidates {
            do {
                let decoder = try HardwareDecoder(stream: stream, api: api, threads: threads)
                Log.track.info("\(input): hardware decoding (\(api.rawValue))")
                // The fallback opens mid-stream, from the parameters kept: the AVStream may be gone.
                return FallbackDecoder(primary: decoder, api: api, input: input, parameters: try StreamParameters(stream)) { kept throws(MediaError) in
                    try SoftwareDecoder(parameters: kept, threads: threads, slicesOnly: slicesOnly)
                }
            } catch {
                refusals.append(hardware == .auto ? "\(api.rawValue): \(error.reason)" : error.reason)
            }
        }
        Log.track.warning("\(input): --hwdec=\(hardware): \(refusals.joined(separator: "; ")): decoding in software")
        return try SoftwareDecoder(stream: stream, threads: threads, slicesOnly: slicesOnly)
    }
}
