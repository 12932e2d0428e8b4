/// How many threads a software video decoder gets in real-time playback: the fewest that keep
/// up with the stream. `hplayer bench`, `--untimed` and encoding use every core instead
/// (libavcodec's own choice), and `--vd-lavc-threads` fixes the count.
///
/// Each frame thread holds pictures of its own (a 1080p picture is 3 MiB, a 4K one 12), and at
/// 1x most of them wait: mpv with one thread peaks 16 % lower at the same CPU. So playback starts
/// with what the stream's pixel rate asks, and grows when decoding is measured to take more
/// than `targetLoad` of each frame interval.
package enum DecoderThreadSizing {
    /// Pixels a second one thread is taken to decode before anything is measured: a slow
    /// core's H.264 or HEVC (a 2020s desktop core decodes about 400 M, 1080p H.264 at 6 Mb/s
    /// and 4K HEVC at 20 alike), so a start rarely falls behind.
    package static let pixelsPerThreadSecond = 200e6
    /// Decoding may take this share of each frame interval; the rest is headroom for key
    /// pictures, bursts of bits and the other threads of the player.
    package static let targetLoad = 0.5
    /// libavcodec's own limit on the threads it picks.
    package static let maximum = 16

    /// Threads to start with: the stream's pixel rate at this speed, against what one thread is
    /// taken to decode, with the headroom; at least 1, at most the cores (and `maximum`).
    package static func initialThreads(width: Int, height: Int, framesPerSecond: Double, speed: Double, cores: Int) -> Int {
        let pixelRate = Double(max(width, 0) * max(height, 0)) * max(framesPerSecond, 0) * max(speed, 1)
        let needed = pixelRate / (pixelsPerThreadSecond * targetLoad)
        return clamp(needed.isFinite ? Int(needed.rounded(.up)) : maximum, cores: cores)
    }

    /// Threads for what was measured: `decodeTime` is the wall time the decode loop spent in
    /// the decoder per picture over the last pictures, with `current` threads, and
    /// `frameInterval` the seconds each picture may take at the playback speed. Within the
    /// target load, `current`; above it, what brings the load back to the target, at least
    /// double (with frame threads, the time measured is only what they could not hide).
    /// Never fewer: dropping threads costs a switch for memory alone.
    package static func threads(current: Int, frameInterval: Double, decodeTime: Double, cores: Int) -> Int {
        guard frameInterval > 0, decodeTime > frameInterval * targetLoad else { return clamp(current, cores: cores) }
        let scaled = Double(current) * decodeTime / (frameInterval * targetLoad)
        let grown = max(current * 2, scaled.isFinite ? Int(scaled.rounded(.up)) : maximum)
        return clamp(grown, cores: cores)
    }

    private static func clamp(_ threads: Int, cores: Int) -> Int {
        min(max(threads, 1), max(min(cores, maximum), 1))
    }
}
