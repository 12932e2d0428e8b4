/// How much a track holds, as the buffering decision sees it.
public struct TrackBuffer: Equatable, Sendable {
    public var kind: MediaKind
    public var packetCount: Int
    public var packetCapacity: Int
    /// Frames of the current seek serial in the frame queue.
    public var frameCount: Int
    public var frameCapacity: Int
    public var packetsPerSecond: Double
    /// The source has read every packet of this track (for the current serial).
    public var isEndOfFile: Bool
    /// Where the track's latest packet read ends on the timeline, in seconds; nil before any.
    public var lastPacketEnd: Double?

    public init(kind: MediaKind, packetCount: Int, packetCapacity: Int, frameCount: Int, frameCapacity: Int,
                packetsPerSecond: Double, isEndOfFile: Bool, lastPacketEnd: Double? = nil) {
        self.kind = kind
        self.packetCount = packetCount
        self.packetCapacity = packetCapacity
        self.frameCount = frameCount
        self.frameCapacity = frameCapacity
        self.packetsPerSecond = packetsPerSecond
        self.isEndOfFile = isEndOfFile
        self.lastPacketEnd = lastPacketEnd
    }
}

/// Where playback stands for the buffering rules.
public enum BufferingPhase: Sendable, Equatable {
    /// Just opened: nothing presented yet.
    case firstOpen
    /// A seek was just executed.
    case afterSeek
    /// Playing along; a track that ran dry must refill to the minimum.
    case steady
}

public struct BufferingOptions: Sendable, Equatable {
    /// Seconds a track must hold to become playable again after running dry.
    public var minimumBufferedDuration: Double = 3
    /// Reading pauses above this many seconds and resumes below half of it.
    public var maximumBufferedDuration: Double = 30
    /// Decoded pictures a video track needs to start playing, on opening and after a seek (never
    /// more than just over half its frame queue): the picture shown at once and the next, so the
    /// decoder is a frame ahead when the clock starts.
    public var videoFramesToStart = 2
    /// An audio track is playable at once on first open, and after a seek once it holds more than
    /// a second of packets, without waiting for its frame queue to fill.
    public var fastStartAudio = true
    /// A stream with nothing left whose last packet lies this many seconds behind what reading
    /// has reached has ended, though the file goes on.
    public var streamEndGap = 5.0

    public init() {}
}

/// The source's buffering verdict at one moment.
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
}

/// The buffering rules as pure functions over plain values.
public enum BufferingPolicy {
    /// Seconds a track holds: (packets + frames) / packets per second.
    public static func bufferedDuration(_ track: TrackBuffer) -> Double {
        guard track.packetsPerSecond > 0 else { return 0 }
        return Double(track.packetCount + track.frameCount) / track.packetsPerSecond
    }

    /// The minimum to refill to, capped at what the packet queue holds at its half-way mark, so a
    /// stream with many packets a second can always get there.
    public static func requiredDuration(_ track: TrackBuffer, options: BufferingOptions) -> Double {
        guard track.packetsPerSecond > 0 else { return options.minimumBufferedDuration }
        let halfQueue = Double(track.packetCapacity / 2) / track.packetsPerSecond
        return min(options.minimumBufferedDuration, halfQueue)
    }

    public static func isPlayable(_ track: TrackBuffer, phase: BufferingPhase, options: BufferingOptions) -> Bool {
        if track.isEndOfFile {
            // Frames left to show, or nothing left at all (nothing will ever come to wait for).
            return track.frameCount > 0 || track.packetCount == 0
        }
        switch phase {
        case .firstOpen, .afterSeek:
            if track.kind == .video { return track.frameCount >= min(options.videoFramesToStart, track.frameCapacity / 2 + 1) }
            if track.frameCount > track.frameCapacity / 2 { return true }
            guard options.fastStartAudio else { return false }
            return phase == .firstOpen || Double(track.packetCount) > track.packetsPerSecond
        case .steady:
            return bufferedDuration(track) >= requiredDuration(track, options: options)
        }
    }

    public static func isStarved(_ track: TrackBuffer) -> Bool {
        !track.isEndOfFile && track.packetCount == 0 && track.frameCount == 0
    }

    public static func evaluate(_ tracks: [TrackBuffer], phase: BufferingPhase, options: BufferingOptions) -> BufferingReport {
        var buffered = Double.infinity
        var required = options.minimumBufferedDuration
        var playable = true
        var starved = false
        var finished = !tracks.isEmpty
        for track in tracks {
            finished = finished && track.isEndOfFile
            if track.packetCount + track.frameCount > 0 || !track.isEndOfFile {
                buffered = min(buffered, bufferedDuration(track))
            }
            required = min(required, requiredDuration(track, options: options))
            playable = playable && isPlayable(track, phase: phase, options: options)
            starved = starved || isStarved(track)
        }
        if buffered == .infinity { buffered = 0 }
        let progress = playable ? 100 : required > 0 ? min(99, Int(buffered / required * 100)) : 0
        return BufferingReport(bufferedDuration: buffered, isPlayable: playable, isStarved: starved, progress: progress,
                               isInputFinished: finished)
    }

    /// Load state moves with hysteresis: loading until playable; playable until a track starves.
    public static func nextLoadState(_ current: LoadState, report: BufferingReport) -> LoadState {
        switch current {
        case .idle, .loading:
            return report.isPlayable ? .playable : .loading
        case .playable:
            return report.isStarved ? .loading : .playable
        }
    }

    /// What to do while loading and the read loop is blocked on the full packet queue of
    /// `tracks[blocked]` though another track still needs packets.
    public enum StarvationRemedy: Equatable, Sendable {
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

    public static func starvationRemedy(blockedOn blocked: Int, tracks: [TrackBuffer], phase: BufferingPhase,
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

    /// Reading pauses above the maximum and resumes below half of it.
    public static func shouldPauseReading(isPaused: Bool, bufferedDuration: Double, options: BufferingOptions) -> Bool {
        isPaused
            ? bufferedDuration >= options.maximumBufferedDuration / 2
            : bufferedDuration > options.maximumBufferedDuration
    }
}
