import ArgumentParser
import HPlayerKit

/// How http(s) inputs are fetched, in mpv's option names.
struct NetworkArguments: ParsableArguments {
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
    @Option(name: .customLong("hls-bitrate"), help: "The HLS variant to play: max (the default), min, or the highest at or below this many bits per second.")
    var hlsBitrate: String?
    @Option(name: .customLong("cache-secs"), help: "Read network media this many seconds ahead at most (default 120).")
    var cacheSeconds: Double?
    @Option(name: .customLong("demuxer-max-bytes"), help: "Read network media ahead up to this many bytes of packets: 64MiB (the default), 500KiB, 1GiB or bytes.")
    var demuxerMaxBytes: String?
    @Option(name: .customLong("cache-pause-wait"), help: "Seconds to buffer before playing again after running dry (default 3).")
    var cachePauseWait: Double?

    func apply(to source: inout SourceOptions) throws(CommandLineFailure) {
        try apply(to: &source.network)
        if let cacheSeconds {
            guard cacheSeconds > 0, cacheSeconds.isFinite else { throw .usage(input: "--cache-secs", reason: "expected seconds above 0, got \(cacheSeconds)") }
            source.readAhead.seconds = cacheSeconds
        }
        if let demuxerMaxBytes {
            guard let bytes = ByteSize.parse(demuxerMaxBytes), bytes > 0 else {
                throw .usage(input: "--demuxer-max-bytes", reason: "expected a size such as 64MiB, got '\(demuxerMaxBytes)'")
            }
            source.readAhead.bytes = bytes
        }
        if let cachePauseWait {
            guard cachePauseWait >= 0, cachePauseWait.isFinite else {
                throw .usage(input: "--cache-pause-wait", reason: "expected seconds, got \(cachePauseWait)")
            }
            source.buffering.minimumBufferedDuration = cachePauseWait
        }
    }

    private func apply(to options: inout NetworkOptions) throws(CommandLineFailure) {
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
        if let hlsBitrate {
            guard let bitrate = HLSBitrate(hlsBitrate) else {
                throw .usage(input: "--hls-bitrate", reason: "expected max, min or bits per second, got '\(hlsBitrate)'")
            }
            options.hlsBitrate = bitrate
        }
    }
}

/// Sizes as mpv writes them: bytes, or a number with KiB, MiB, GiB (and K, M, G, the same).
enum ByteSize {
    static func parse(_ text: String) -> Int? {
        let units: [(String, Double)] = [("kib", 0x400), ("mib", 0x10_0000), ("gib", 0x4000_0000),
                                      ("k", 0x400), ("m", 0x10_0000), ("g", 0x4000_0000), ("b", 1)]
        let lowered = text.lowercased()
        var factor = 1.0
        var number = Substring(lowered)
        if let (suffix, unit) = units.first(where: { lowered.hasSuffix($0.0) }) {
            factor = unit
            number = lowered.dropLast(suffix.count)
        }
        guard let value = Double(number), value >= 0, (value * factor).isFinite, value * factor < Double(Int.max) else { return nil }
        return Int(value * factor)
    }
}
