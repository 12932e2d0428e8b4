/// How much a track holds, as the buffering decision sees it.
package struct TrackBuffer: Equatable, Sendable {
    package var kind: MediaKind
    package var packetCount: Int
    package var packetCapacity: Int
    /// Frames of the current seek serial in the frame queue.
    package var frameCount: Int
    package var frameCapacity: Int
    package var packetsPerSecond: Double
    /// The source has read every packet of this track (for the current serial).
    package var isEndOfFile: Bool
    /// Where the track's latest packet read ends on the timeline, in seconds; nil before any.
    package var lastPacketEnd: Double?
    /// The payload bytes of its queued packets.
    package var packetBytes: Int
    /// A packet of the current serial has been read, though the decoder may have taken it
    /// (`packetCount` counts what is queued still).
    package var hasReadPacket: Bool
    /// The decoder has put out a frame of the current serial, though a renderer may have taken
    /// it (`frameCount` counts what is queued still: the audio tempo stage takes frames at once).
    package var hasDecodedFrame: Bool

    package init(kind: MediaKind, packetCount: Int, packetCapacity: Int, frameCount: Int, frameCapacity: Int,
                packetsPerSecond: Double, isEndOfFile: Bool, lastPacketEnd: Double? = nil, packetBytes: Int = 0,
                hasReadPacket: Bool? = nil, hasDecodedFrame: Bool? = nil) {
        self.kind = kind
        self.packetCount = packetCount
        self.packetCapacity = packetCapacity
        self.frameCount = frameCount
        self.frameCapacity = frameCapacity
        self.packetsPerSecond = packetsPerSecond
        self.isEndOfFile = isEndOfFile
        self.lastPacketEnd = lastPacketEnd
        self.packetBytes = packetBytes
        self.hasReadPacket = hasReadPacket ?? (packetCount > 0)
        self.hasDecodedFrame = hasDecodedFrame ?? (frameCount > 0)
    }
}

/// Where playback stands for the buffering rules.
package enum BufferingPhase: Sendable, Equatable {
    /// Just opened: nothing presented yet.
    case firstOpen
    /// A seek was just executed.
    case afterSeek
    /// Playing along; a track that ran dry must refill to the minimum.
    case steady
}

/// How far network media is read ahead, in mpv's words: `--cache-secs` and `--demuxer-max-bytes`.
/// A network can slow down for tens of seconds; what is read ahead plays through it.
public struct ReadAhead: Sendable, Equatable {
    /// Seconds of media read ahead of the position (`--cache-secs`).
    public var seconds = 120.0
    /// Queued packets' bytes: 64 MiB holds the 120 s of a stream up to 4.4 Mb/s, and 107 s of
    /// a 5 Mb/s 1080p one.
    public var bytes = 64 << 20

    /// mpv's defaults: 120 s, 64 MiB.
    public init(seconds: Double = 120, bytes: Int = 64 << 20) {
        self.seconds = seconds
        self.bytes = bytes
    }
}

/// When the source reads and when its tracks are playable: `SourceOptions.buffering`. The
/// defaults are a local file's; network media reads further (`readingAhead`), live media
/// starts at once (`live()`).
public struct BufferingOptions: Sendable, Equatable {
    /// Seconds a track must hold to become playable again after running dry (`--cache-pause-wait`).
    public var minimumBufferedDuration: Double = 3
    /// Reading pauses above this many seconds, or `maximumBufferedBytes` of packets... For a
    /// local file, 2 s (mpv reads 1 s ahead): the disk does not stall, and what is read ahead is
    /// held in memory. The bytes only bound what an intra codec at hundreds of Mb/s reads in
    /// those 2 s (mpv's 150 MiB). Network media reads further (`readingAhead`).
    public var maximumBufferedDuration: Double = 2
    /// The bytes of queued packets above which reading pauses (see `maximumBufferedDuration`).
    public var maximumBufferedBytes = 128 << 20
    /// ...and resumes below this fraction of both.
    public var resumeFraction = 0.5
    /// Packet queues grow to hold what the limits above allow (network media), rather than
    /// holding their first capacity (local files, which need little read ahead).
    public var growsPacketQueues = false
    /// Decoded pictures a video track needs to start playing, on opening and after a seek (never
    /// more than just over half its frame queue): the first, shown at once. The next is due a
    /// frame interval later. Waiting for it too held the first picture back by one more
    /// picture's decoding (0.2 s against mpv's 0.165 s on the harness's 1080p clip). Where the
    /// first pictures take longer than an interval each, the second may come a little late
    /// instead; none was dropped over the harness's clips.
    public var videoFramesToStart = 1
    /// An audio track is playable on first open once its first frame is decoded (or while not one
    /// packet of it has been read), and after a seek once it holds more than a second of packets,
    /// without waiting for its frame queue to fill. The first frame is waited for because the
    /// timeline starts at the earliest track's: sound that begins before the picture would be
    /// cut. Empty queues are not "no packet": the decoder may hold the first packets, and the
    /// tempo stage the first frame.
    public var fastStartAudio = true
    /// A stream with nothing left whose last packet lies this many seconds behind what reading
    /// has reached has ended, though the file goes on.
    public var streamEndGap = 5.0

    /// A local file's rules, as the fields say.
    public init() {}

    /// These options, reading ahead as far as `readAhead` allows. Reading resumes once the
    /// buffer is a tenth under a limit, so it is kept nearly full instead of sagging to half.
    public func readingAhead(_ readAhead: ReadAhead) -> BufferingOptions {
        var options = self
        options.maximumBufferedDuration = readAhead.seconds
        options.maximumBufferedBytes = readAhead.bytes
        options.resumeFraction = 0.9
        options.growsPacketQueues = true
        return options
    }
}

/// The source's buffering verdict at one moment, which `SourceDelegate` receives on the read
/// thread.
public struct BufferingReport: Equatable, Sendable {
    /// Seconds buffered: the minimum over the tracks still holding anything.
    public var bufferedDuration: Double
    /// Every track is playable.
    public var isPlayable: Bool
    /// A track holds no packet and no frame and more are still to come: playback must stop.
    public var isStarved: Bool
    /// How far the refill is, 0...100.
    public var progress: Int
    /// Every track has read its last packet: what is queued is all that will play.
    public var isInputFinished = false
    /// The payload bytes of every queued packet.
    public var bufferedBytes = 0
    /// Where reading stands on the timeline (seconds): the end of the latest packet read, of the
    /// track least far along; nil before every track has one. Live mode's latency is measured from it.
    public var readEnd: Double?
    /// Where the newest video key frame read starts (seconds); nil without video or before one.
    public var newestKeyFrame: Double?
}

/// The buffering rules as pure functions over plain values.
package enum BufferingPolicy {
    /// Seconds a track holds: (packets + frames) / packets per second.
    package static func bufferedDuration(_ track: TrackBuffer) -> Double {
        guard track.packetsPerSecond > 0 else { return 0 }
        return Double(track.packetCount + track.frameCount) / track.packetsPerSecond
    }

    /// The minimum to refill to, capped at what the packet queue holds at its half-way mark, so a
    /// stream with many packets a second can always get there, and at where reading resumes, so
    /// a read-ahead shorter than the minimum is never waited for in vain.
    package static func requiredDuration(_ track: TrackBuffer, options: BufferingOptions) -> Double {
        let minimum = min(options.minimumBufferedDuration, options.maximumBufferedDuration * options.resumeFraction)
        guard track.packetsPerSecond > 0 else { return minimum }
        let halfQueue = Double(track.packetCapacity / 2) / track.packetsPerSecond
        return min(minimum, halfQueue)
    }

    /// The queued packets fill the byte limit as far as reading resumes: reading has stopped, so
    /// what is buffered is all there will be to wait for.
    package static func isByteLimitReached(bufferedBytes: Int, options: BufferingOptions) -> Bool {
        options.maximumBufferedBytes < .max && Double(bufferedBytes) >= Double(options.maximumBufferedBytes) * options.resumeFraction
    }

    package static func isPlayable(_ track: TrackBuffer, phase: BufferingPhase, options: BufferingOptions) -> Bool {
        if track.isEndOfFile {
            // Frames left to show, or nothing left at all (nothing will ever come to wait for).
            return track.frameCount > 0 || track.packetCount == 0
        }
        switch phase {
        case .firstOpen, .afterSeek:
            if track.kind == .video { return track.frameCount >= min(options.videoFramesToStart, track.frameCapacity / 2 + 1) }
            if track.frameCount > track.frameCapacity / 2 { return true }
            guard options.fastStartAudio else { return false }
            if phase == .firstOpen { return track.frameCount > 0 || track.hasDecodedFrame || !track.hasReadPacket }
            return Double(track.packetCount) > track.packetsPerSecond
        case .steady:
            return bufferedDuration(track) >= requiredDuration(track, options: options)
        }
    }

    package static func isStarved(_ track: TrackBuffer) -> Bool {
        !track.isEndOfFile && track.packetCount == 0 && track.frameCount == 0
    }

    package static func evaluate(_ tracks: [TrackBuffer], phase: BufferingPhase, options: BufferingOptions) -> BufferingReport {
        var buffered = Double.infinity
        var required = options.minimumBufferedDuration
        var playable = true
        var starved = false
        var finished = !tracks.isEmpty
        var bytes = 0
        for track in tracks {
            bytes += track.packetBytes
            finished = finished && track.isEndOfFile
            if track.packetCount + track.frameCount > 0 || !track.isEndOfFile {
                buffered = min(buffered, bufferedDuration(track))
            }
            required = min(required, requiredDuration(track, options: options))
            playable = playable && isPlayable(track, phase: phase, options: options)
            starved = starved || isStarved(track)
        }
        if buffered == .infinity { buffered = 0 }
        if phase == .steady, !playable, !starved, isByteLimitReached(bufferedBytes: bytes, options: options) { playable = true }
        let progress = playable ? 100 : required > 0 ? min(99, Int(buffered / required * 100)) : 0
        let ends = tracks.map(\.lastPacketEnd)
        let readEnd = ends.contains(nil) ? nil : ends.compactMap { $0 }.min()
        return BufferingReport(bufferedDuration: buffered, isPlayable: playable, isStarved: starved, progress: progress,
                               isInputFinished: finished, bufferedBytes: bytes, readEnd: readEnd)
    }

    /// Load state moves with hysteresis: loading until playable; playable until a track starves.
    package static func nextLoadState(_ current: LoadState, report: BufferingReport) -> LoadState {
        switch current {
        case .idle, .loading:
            return report.isPlayable ? .playable : .loading
        case .playable:
            return report.isStarved ? .loading : .playable
        }
    }

    /// What to do while loading and the read loop is blocked on the full packet queue of
    /// `tracks[blocked]` though another track still needs packets.
    package enum StarvationRemedy: Equatable, Sendable {
        /// Nothing is missing: wait for the decoders.
        case wait
        /// The missing packets lie further on in the file: make room to read on to them (up to
        /// the limit), or a file that interleaves its streams further apart than a queue holds
        /// would never become playable.
        case growQueue
        /// These tracks have ended, though the file goes on: their last packets lie far behind
        /// what reading has reached. Without this, a soundtrack shorter than its picture would
        /// stall playback at its end.
        case endTracks([Int])
    }

    package static func starvationRemedy(blockedOn blocked: Int, tracks: [TrackBuffer], phase: BufferingPhase,
                                        options: BufferingOptions, capacityLimit: Int) -> StarvationRemedy {
        let needy = tracks.indices.filter { index in
            index != blocked && !isPlayable(tracks[index], phase: phase, options: options)
                && tracks[index].packetCount < tracks[index].packetCapacity / 2
        }
        guard !needy.isEmpty else { return .wait }
        let reached = tracks[blocked].lastPacketEnd ?? 0
        let ended = needy.filter { reached - (tracks[$0].lastPacketEnd ?? -.infinity) >= options.streamEndGap }
        if !ended.isEmpty { return .endTracks(ended) }
        return tracks[blocked].packetCapacity < capacityLimit ? .growQueue : .wait
    }

    /// Reading pauses above either maximum and resumes once below the resume fraction of both;
    /// never while a track has nothing at all (the bytes may all be another track's), or its
    /// packets would never come.
    package static func shouldPauseReading(isPaused: Bool, bufferedDuration: Double, bufferedBytes: Int = 0, isStarved: Bool = false,
                                          options: BufferingOptions) -> Bool {
        guard !isStarved else { return false }
        let bytes = Double(bufferedBytes), maximumBytes = Double(options.maximumBufferedBytes)
        return isPaused
            ? bufferedDuration >= options.maximumBufferedDuration * options.resumeFraction || bytes >= maximumBytes * options.resumeFraction
            : bufferedDuration > options.maximumBufferedDuration || bytes > maximumBytes
    }

    /// The most packets a queue grows to for read-ahead: a bound on the wrappers kept, whatever
    /// the stream claims its rate is.
    package static let readAheadCapacityLimit = 1 << 16

    /// Whether a full packet queue grows to read further ahead: while the options grow queues,
    /// the track holds less than the time limit and all queued packets less than the byte limit.
    package static func shouldGrowForReadAhead(_ track: TrackBuffer, bufferedBytes: Int, options: BufferingOptions) -> Bool {
        options.growsPacketQueues && track.packetCount >= track.packetCapacity
            && track.packetCapacity < readAheadCapacityLimit
            && bufferedDuration(track) < options.maximumBufferedDuration
            && bufferedBytes < options.maximumBufferedBytes
    }
}
