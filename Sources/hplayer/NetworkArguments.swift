import ArgumentParser
import Glibc
import HPlayerKit

/// How each http(s) request is made, in mpv's option names.
struct RequestArguments: ParsableArguments {
    @Option(name: .customLong("user-agent"), help: "The User-Agent of every request.") var userAgent: String?
    @Option(help: "The Referer of every request.") var referrer: String?
    @Option(name: .customLong("http-header-fields"), help: "Header lines sent with every request, 'Name: value', comma separated; may be given more than once.")
    var headerFields: [String] = []
    @Option(name: .customLong("network-timeout"), help: "Seconds to wait for a connection, or for data before reopening a transfer where it stopped (default 10).")
    var timeout: Double?
    @Option(name: .customLong("tls-verify"), help: "yes (the default) or no: whether server certificates are verified.")
    var tlsVerify: String?
    @Option(name: .customLong("tls-ca-file"), help: "Trust the certificate authorities in this PEM file instead of the system's.")
    var caFile: String?
    @Flag(name: .customLong("http-allow-insecure-redirect"), help: "Follow a redirect from https to http (refused by default).")
    var allowsInsecureRedirect = false
    @Flag(name: .customLong("http-forward-credentials"), help: "Send --http-header-fields and --referrer after a redirect to another server too (by default only to the server asked).")
    var forwardsCredentials = false

    func apply(to options: inout NetworkOptions) throws(CommandLineFailure) {
        if let userAgent { options.userAgent = userAgent }
        options.referrer = referrer
        options.headerFields = headerFields.flatMap { $0.split(separator: ",").map { String($0.drop { $0 == " " }) } }
        if let timeout {
            guard timeout > 0, timeout.isFinite else { throw .usage(input: "--network-timeout", reason: "expected seconds above 0, got \(timeout)") }
            options.timeout = timeout
        }
        switch tlsVerify {
        case nil, "yes": options.verifiesTLS = true
        case "no": options.verifiesTLS = false
        case let other?: throw .usage(input: "--tls-verify", reason: "expected yes or no, got '\(other)'")
        }
        options.caFile = caFile
        options.allowsInsecureRedirect = allowsInsecureRedirect
        options.forwardsCredentials = forwardsCredentials
    }
}

/// How http(s) inputs are fetched: the requests, the HLS variant, the disk cache.
struct NetworkArguments: ParsableArguments {
    @OptionGroup var requests: RequestArguments
    @Option(name: .customLong("hls-bitrate"), help: "The HLS variant to play: auto (the default: each segment's as --hls-abr picks it), max, min, or the highest at or below this many bits per second.")
    var hlsBitrate: String?
    @Option(name: .customLong("hls-abr"), help: "The bitrate policy of --hls-bitrate=auto: auto (the default), bola, throughput or seed.")
    var hlsABR: String?
    @Option(help: "The sound's languages in order of preference, comma-separated (as mpv's --alang): the HLS audio rendition or DASH audio set fetched, and a file's audio track.")
    var alang: String?
    @Option(name: .customLong("dash-clearkey"), help: "Keys of Common Encryption (cenc) segments, KID:KEY,... in hex (DASH, and HLS SAMPLE-AES-CTR), or @FILE holding them (not seen by other users in the process list).")
    var clearKeys: String?
    @Option(name: .customLong("dash-clearkey-server"), help: "A ClearKey license server (http or https) asked for the keys not given, before the one a manifest names.")
    var clearKeyServer: String?
    @Option(help: "yes (the default) or no: keep every byte fetched in the disk cache, and play from it what it holds.")
    var cache: String?
    @Option(name: .customLong("cache-dir"), help: "The disk cache's folder (default $XDG_CACHE_HOME/hplayer).")
    var cacheDirectory: String?
    @Option(name: .customLong("cache-max-bytes"), help: "The disk cache's size: 2GiB (the default), 500MiB, or bytes; the least recently used goes first.")
    var cacheMaxBytes: String?

    func apply(to options: inout NetworkOptions) throws(CommandLineFailure) {
        try requests.apply(to: &options)
        if let hlsBitrate {
            guard let bitrate = HLSBitrate(hlsBitrate) else {
                throw .usage(input: "--hls-bitrate", reason: "expected auto, max, min or bits per second, got '\(hlsBitrate)'")
            }
            options.hlsBitrate = bitrate
        }
        if let hlsABR {
            guard let policy = ABRPolicy(hlsABR) else {
                throw .usage(input: "--hls-abr", reason: "expected auto, bola, throughput or seed, got '\(hlsABR)'")
            }
            options.hlsABR = policy
        }
        if let alang { options.audioLanguages = TrackLanguage.list(alang) }
        if let clearKeys { options.clearKeys = try Self.clearKeys(clearKeys, option: "--dash-clearkey") }
        if let clearKeyServer {
            guard OriginPolicy.isRemote(clearKeyServer) else { throw .usage(input: "--dash-clearkey-server", reason: "expected an http or https URL, got '\(clearKeyServer)'") }
            options.clearKeyServer = clearKeyServer
        }
        options.cache = try diskCache()
    }

    /// `KID:KEY,...`, or `@FILE` holding that (pairs one to a line, or separated by commas).
    static func clearKeys(_ text: String, option: String) throws(CommandLineFailure) -> [ClearKey] {
        var list = text
        if text.hasPrefix("@") {
            let path = String(text.dropFirst())
            guard let file = fopen(path, "rb") else { throw .usage(input: option, reason: "\(path): \(String(cString: strerror(errno)))") }
            defer { fclose(file) }
            var bytes = [UInt8](repeating: 0, count: 1 << 16)
            let count = fread(&bytes, 1, bytes.count, file)
            list = String(decoding: bytes.prefix(count), as: UTF8.self)
                .split { $0.isWhitespace || $0 == "," }.joined(separator: ",")
        }
        do { return try ClearKey.parseList(list) } catch { throw .usage(input: option, reason: error.reason) }
    }

    /// The disk cache these options ask for (opened when a network resource first needs it);
    /// nil with `--cache=no`.
    func diskCache() throws(CommandLineFailure) -> DiskCache? {
        switch cache {
        case nil, "yes", "auto": break
        case "no": return nil
        case let other?: throw .usage(input: "--cache", reason: "expected yes or no, got '\(other)'")
        }
        var maxBytes = CacheStore.defaultMaxBytes
        if let cacheMaxBytes {
            guard let bytes = ByteSize.parse(cacheMaxBytes), bytes > 0 else {
                throw .usage(input: "--cache-max-bytes", reason: "expected a size such as 2GiB, got '\(cacheMaxBytes)'")
            }
            maxBytes = Int64(bytes)
        }
        return DiskCache(directory: cacheDirectory ?? CacheStore.defaultDirectory(), maxBytes: maxBytes)
    }
}
