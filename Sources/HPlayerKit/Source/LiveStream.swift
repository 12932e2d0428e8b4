/// Live mode: played at a small latency that playback catches up to (mpv's low-latency
/// profile, ffplay's `-fflags nobuffer`).
public struct LiveOptions: Sendable, Equatable {
    /// When live mode applies.
    public enum Mode: Sendable, Equatable {
        /// For live protocols (UDP, TCP, RTMP, RTSP, SRT): the default.
        case auto
        /// `--live`, `--profile=low-latency`.
        case always
        /// `--no-live`.
        case never
    }

    /// When it applies: by default, to live protocols only.
    public var mode = Mode.auto
    /// `--live-latency`: seconds held, beyond what decoding needs, before playback catches up.
    public var latencyTarget = 0.1

    /// The defaults: live protocols only, 0.1 s.
    public init(mode: Mode = .auto, latencyTarget: Double = 0.1) {
        self.mode = mode
        self.latencyTarget = latencyTarget
    }

    /// Whether `url` plays in live mode.
    package func applies(to url: String) -> Bool {
        switch mode {
        case .auto: LiveInput.isLive(url)
        case .always: true
        case .never: false
        }
    }
}

/// What makes an input live, and how it behaves when its sender goes quiet.
package enum LiveInput {
    /// Whether `url` names a live protocol: live mode is then on unless asked off.
    package static func isLive(_ url: String) -> Bool {
        scheme(of: url).map { liveSchemes.contains($0) } ?? false
    }

    /// Whether what is read of `url` arrives as it is made, so that a backlog is caught up on:
    /// a live protocol, standard input or a named pipe. A file read in live mode (`--live`) is
    /// read ahead at once: playing it faster would catch up on nothing.
    package static func arrivesInRealTime(_ url: String) -> Bool {
        isLive(url) || url == StandardInput.url || NamedPipe.path(of: url) != nil
    }

    /// Datagrams (UDP, RTP) come back after a silence: it is waited through. A connection that
    /// stays silent for `--network-timeout` has ended, with an error.
    package static func waitsThroughSilence(_ url: String) -> Bool {
        scheme(of: url).map { ["udp", "rtp"].contains($0) } ?? false
    }

    /// A connection (TCP, RTMP, RTSP, SRT) on which no packet comes for `--network-timeout` has
    /// ended, even while the server keeps it open.
    package static func endsAfterSilence(_ url: String) -> Bool {
        isLive(url) && !waitsThroughSilence(url)
    }

    /// RTMP: FLV, whose streams are known only as their packets come, and a server may send a
    /// joining viewer sound before it sends a picture.
    package static func mayStartWithSoundAlone(_ url: String) -> Bool {
        scheme(of: url)?.hasPrefix("rtmp") ?? false
    }

    /// How long a track may be dry before live playback waits for data: a few frame intervals.
    static let starvationGrace = 0.25

    /// Whether a live track is starved. At the live edge its queues run dry between two arrivals,
    /// often many times a second, and waiting for data each time would add to the latency for
    /// good; only a track that is dry and has had nothing for `starvationGrace`, or for a few of
    /// its packet intervals (a camera at 2 fps is dry half a second between pictures), is.
    /// Reports come as packets do: a sender gone quiet entirely leaves the read thread waiting in
    /// libavformat, which the player's status notices.
    static func isStarved(_ track: TrackBuffer, quietFor quiet: Double) -> Bool {
        let interval = track.packetsPerSecond > 0 ? 1 / track.packetsPerSecond : 0
        return BufferingPolicy.isStarved(track) && quiet >= max(starvationGrace, 2.5 * interval)
    }

    private static let liveSchemes: Set<String> = ["udp", "rtp", "tcp", "rtmp", "rtmps", "rtmpt", "rtmpe", "rtsp", "rtsps", "srt"]

    private static func scheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":"), url[url.index(after: colon)...].hasPrefix("//") else { return nil }
        return url[..<colon].lowercased()
    }
}

extension BufferingOptions {
    /// Live: playback goes on as soon as anything comes after running dry: at the live edge a
    /// queue runs dry between two arrivals, and each wait for more would add to the latency for
    /// good.
    public static func live() -> BufferingOptions {
        var options = BufferingOptions()
        options.minimumBufferedDuration = 0
        // Reading never pauses on a live input in practice (what the sender sends must be taken):
        // catching up keeps the queues short.
        options.maximumBufferedDuration = 30
        options.maximumBufferedBytes = .max
        return options
    }
}
