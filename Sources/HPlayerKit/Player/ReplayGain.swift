import Glibc

/// mpv's `--replaygain`: a file's loudness tags turned into a gain on its sound, as Debian's mpv
/// 0.35 turns them (the tests compare both). A pure decision, tested by table.
public struct ReplayGain: Sendable, Equatable {
    public enum Mode: String, Sendable, Equatable, CaseIterable {
        /// The tags are not read (the default).
        case no
        /// REPLAYGAIN_TRACK_GAIN and _PEAK.
        case track
        /// REPLAYGAIN_ALBUM_GAIN and _PEAK, else the track's.
        case album
    }

    public var mode = Mode.no
    /// Decibels added to the tag's gain (`--replaygain-preamp`), -150 to 150.
    public var preamp = 0.0
    /// Lets the gain take the tagged peak past full scale (`--replaygain-clip`); by default it is
    /// lowered to keep the peak at full scale.
    public var allowsClipping = false
    /// Decibels for a file without tags, or for every file with the mode `no`, as mpv applies
    /// it (`--replaygain-fallback`).
    public var fallback = 0.0

    public init(mode: Mode = .no, preamp: Double = 0, allowsClipping: Bool = false, fallback: Double = 0) {
        self.mode = mode
        self.preamp = preamp.isFinite ? min(max(preamp, -150), 150) : 0
        self.allowsClipping = allowsClipping
        self.fallback = fallback.isFinite ? min(max(fallback, -200), 60) : 0
    }

    /// What a file's tags say: decibels of gain and linear peaks.
    public struct Tags: Sendable, Equatable {
        public var trackGain: Double
        public var trackPeak: Double
        public var albumGain: Double
        public var albumPeak: Double

        /// From tags as mpv reads them: the track's gain must be there ("-6.5 dB", the unit
        /// optional), a peak missing is 1; without the album's, the track's; REPLAYGAIN_GAIN and
        /// _PEAK for both when there are no track tags. nil when there is no gain to read.
        public init?(_ tags: [MetadataTag]) {
            func gain(_ key: String) -> Double? {
                MediaMetadata.value(of: key, in: tags).flatMap(Self.leadingNumber)
            }
            func peak(_ key: String) -> Double? {
                guard let text = MediaMetadata.value(of: key, in: tags) else { return 1 }
                return Self.leadingNumber(text).flatMap { $0 > 0 ? $0 : nil }
            }
            if let trackGain = gain("REPLAYGAIN_TRACK_GAIN"), let trackPeak = peak("REPLAYGAIN_TRACK_PEAK") {
                (self.trackGain, self.trackPeak) = (trackGain, trackPeak)
                if let albumGain = gain("REPLAYGAIN_ALBUM_GAIN"), let albumPeak = peak("REPLAYGAIN_ALBUM_PEAK") {
                    (self.albumGain, self.albumPeak) = (albumGain, albumPeak)
                } else {
                    (albumGain, albumPeak) = (trackGain, trackPeak)
                }
            } else if let gain = gain("REPLAYGAIN_GAIN"), let peak = peak("REPLAYGAIN_PEAK") {
                (trackGain, trackPeak, albumGain, albumPeak) = (gain, peak, gain, peak)
            } else {
                return nil
            }
        }

        /// The number a tag's text starts with, as mpv's sscanf("%f") reads it (" dB" after it or not).
        private static func leadingNumber(_ text: String) -> Double? {
            text.withCString { start in
                var end: UnsafeMutablePointer<CChar>?
                let value = strtod(start, &end)
                return end.map { $0 != UnsafeMutablePointer(mutating: start) } == true && value.isFinite ? value : nil
            }
        }

        public init(trackGain: Double, trackPeak: Double, albumGain: Double, albumPeak: Double) {
            (self.trackGain, self.trackPeak, self.albumGain, self.albumPeak) = (trackGain, trackPeak, albumGain, albumPeak)
        }
    }

    /// The factor the sound is multiplied by for a file of `tags`.
    public func factor(for tags: Tags?) -> Double {
        guard mode != .no, let tags else { return Self.linear(fallback) }
        let (gain, peak) = mode == .track ? (tags.trackGain, tags.trackPeak) : (tags.albumGain, tags.albumPeak)
        let factor = Self.linear(gain + preamp)
        return allowsClipping ? factor : min(factor, 1 / peak)
    }

    private static func linear(_ decibels: Double) -> Double { pow(10, decibels / 20) }
}
