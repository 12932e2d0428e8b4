/// How network inputs are fetched; mpv's option names are given with each.
public struct NetworkOptions: Sendable, Equatable {
    /// `--user-agent`.
    public var userAgent = "hplayer"
    /// `--referrer`.
    public var referrer: String?
    /// `--http-header-fields`: whole header lines, "Name: value".
    public var headerFields: [String] = []
    /// `--network-timeout`, seconds: for connecting, and for a transfer that receives nothing
    /// (it is then reopened where it stopped).
    public var timeout = 10.0
    /// `--tls-verify`: certificates are verified unless this is false (mpv's default is the
    /// other way round).
    public var verifiesTLS = true
    /// `--tls-ca-file`: certificate authorities to trust instead of the system's.
    public var caFile: String?
    /// `--http-allow-insecure-redirect`: an https URL may be redirected to an http one.
    public var allowsInsecureRedirect = false
    /// `--http-forward-credentials`: the header fields and referrer above go with a redirect to
    /// another server too, not only to the one asked.
    public var forwardsCredentials = false
    /// `--hls-bitrate`: the variant of an HLS master playlist to play.
    public var hlsBitrate = HLSBitrate.auto
    /// `--hls-abr`: the bitrate policy that picks each segment's variant under `auto`.
    public var hlsABR = ABRPolicy.auto
    /// Told of every request and retry, and measures the download speed.
    public var monitor: NetworkMonitor?
    /// The disk cache every byte fetched goes through; nil: none (`--cache=no`).
    public var cache: DiskCache?
    /// `hplayer cache prefetch --keep-keys`: the HLS keys fetched are kept in the cache folder
    /// (KeptKeys), for playing offline. Otherwise a key is held in memory alone.
    public var keepsKeys = false
    /// `--alang`: the sound to fetch (an HLS audio rendition, a DASH audio AdaptationSet) and to
    /// play (a file's audio track), by language, in order of preference; empty: the default.
    public var audioLanguages: [String] = []
    /// `--dash-clearkey`: the keys of Common Encryption (cenc) segments, by key ID; held in memory
    /// alone.
    package var clearKeys: [ClearKey] = []
    /// `--dash-clearkey-server`: the ClearKey license server asked for a key not given, before
    /// the one a manifest names.
    public var clearKeyServer: String?
    /// `--rtsp-transport`: tcp or udp; nil: libavformat's choice.
    public var rtspTransport: String?

    /// mpv's defaults but for `verifiesTLS`; no monitor, no disk cache.
    public init() {}

    /// Whether `url` is an HLS playlist, for our HLS client: its path ends in .m3u8.
    package static func isHLS(_ url: String) -> Bool {
        guard isHTTP(url) else { return false }
        let path = url.prefix { $0 != "?" && $0 != "#" }
        return path.lowercased().hasSuffix(".m3u8")
    }

    /// Whether `url` is an MPEG-DASH manifest, for our DASH client: its path ends in .mpd, over
    /// http(s) or on this machine (a path or a file URL).
    package static func isDASH(_ url: String) -> Bool {
        guard isHTTP(url) || OriginPolicy.scheme(of: url) == nil || OriginPolicy.scheme(of: url) == "file" else { return false }
        let path = url.prefix { $0 != "?" && $0 != "#" }
        return path.lowercased().hasSuffix(".mpd")
    }

    /// Whether `url` is read by our segment stream (HLS or DASH).
    package static func isSegmented(_ url: String) -> Bool { isHLS(url) || isDASH(url) }

    /// Whether `url` is fetched by the I/O layer's HTTP client rather than by libavformat.
    package static func isHTTP(_ url: String) -> Bool {
        let lowered = url.prefix(8).lowercased()
        return lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
    }
}
