/// The rate a video stream without timestamps (raw H.264 or HEVC) is paced at, and where that
/// rate came from, as mpv chooses it: `--container-fps-override`, else the rate the bitstream
/// gives (the SPS's VUI timing, or HEVC's VPS), else 25 fps.
package struct RawStreamRate: Equatable, Sendable {
    package enum Origin: Equatable, Sendable {
        /// `--container-fps-override`.
        case override
        /// The timing in the stream's parameter sets.
        case bitstream
        /// Neither: 25 fps, as mpv and FFmpeg's raw demuxers assume.
        case assumed
    }

    package var framesPerSecond: Double
    package var origin: Origin

    package static let assumedFramesPerSecond = 25.0

    /// - Parameters:
    ///   - override: `--container-fps-override`, nil when not given.
    ///   - bitstream: the decoder's frame rate from the parameter sets, nil or 0 when they have none.
    package static func choose(override: Double?, bitstream: Double?) -> RawStreamRate {
        if let override, isUsable(override) { return RawStreamRate(framesPerSecond: override, origin: .override) }
        if let bitstream, isUsable(bitstream) { return RawStreamRate(framesPerSecond: bitstream, origin: .bitstream) }
        return RawStreamRate(framesPerSecond: assumedFramesPerSecond, origin: .assumed)
    }

    /// What the player says about it: which rate, and why that one.
    package var summary: String {
        let rate = DecimalText.fixed(framesPerSecond, places: 3)
        switch origin {
        case .override: return "no timestamps in the stream: paced at \(rate) fps, as --container-fps-override says"
        case .bitstream: return "no timestamps in the stream: paced at \(rate) fps, the rate its parameter sets give"
        case .assumed: return "no timestamps and no frame rate in the stream: paced at \(rate) fps (--container-fps-override sets another)"
        }
    }

    private static func isUsable(_ rate: Double) -> Bool { rate.isFinite && rate >= 0.5 && rate <= 1000 }
}
