import HPlayerKit

/// What mpv's properties read, taken from a player at one moment.
public struct PropertySnapshot: Equatable, Sendable {
    public var isPaused: Bool
    public var position: Double
    public var duration: Double?
    public var volume: Int
    public var isMuted: Bool
    public var isLooping: Bool
    public var isEndReached: Bool
    public var isPausedForCache: Bool
    public var cacheDuration: Double
    public var avsync: Double
    public var droppedFrames: Int
    public var abLoop: ABLoop
    public var speed: Double
    /// The file being recorded to; "" when none.
    public var recordingPath = ""
    /// The numbers (from 1, within their kind) of the audio and subtitle tracks playing; nil for none.
    public var audioTrack: Int?
    public var subtitleTrack: Int?
    /// The number of the secondary subtitle track (mpv's secondary-sid); nil for none.
    public var secondarySubtitleTrack: Int?
    public var subtitlesVisible = true
    public var subtitleDelay = 0.0
    public var subtitleScale = 1.0
    public var subtitlePosition = 100.0
    /// The text of the subtitles over the frame on screen: "" when none shows, nil when no
    /// subtitle track is selected (mpv's sub-text).
    public var subtitleText: String?
    /// The first start and the last end of the cues showing, as positions count (mpv's
    /// sub-start and sub-end); nil when none shows, or when it is not yet known.
    public var subtitleStart: Double?
    public var subtitleEnd: Double?
    /// The secondary track's text over the frame on screen: "" when none shows, nil when no
    /// secondary track is selected (mpv's secondary-sub-text).
    public var secondarySubtitleText: String?
    /// How far a refill is towards playing again, 0...100 (100 while playable).
    public var bufferingPercent = 100
    /// The payload bytes read ahead.
    public var bufferedBytes = 0
    /// Every packet has been read: what is buffered is all there is.
    public var isInputFinished = false
    /// Bytes per second from the network; nil when nothing measures it.
    public var downloadSpeed: Double?
    /// The media time the disk cache holds of a network input.
    public var cachedRanges: [TimeRange] = []
    /// The bandwidth of the HLS variant fetched now; nil for other media.
    public var hlsBitrate: Int?
    /// The size of the picture presented last; nil before one.
    public var videoSize: PictureSize?
    /// mpv's track-list.
    public var tracks: [TrackListEntry] = []
    /// The playlist's entries, and the index of the one playing.
    public var playlist = PlaylistView()
    /// The file's path or URL, as it was given.
    public var path = ""
    public var tags: [MetadataTag] = []
    public var chapters: [Chapter] = []

    public init(isPaused: Bool, position: Double, duration: Double?, volume: Int, isMuted: Bool, isLooping: Bool,
                isEndReached: Bool, isPausedForCache: Bool, cacheDuration: Double, avsync: Double, droppedFrames: Int,
                abLoop: ABLoop = ABLoop(), speed: Double = 1) {
        self.isPaused = isPaused
        self.position = position
        self.duration = duration
        self.volume = volume
        self.isMuted = isMuted
        self.isLooping = isLooping
        self.isEndReached = isEndReached
        self.isPausedForCache = isPausedForCache
        self.cacheDuration = cacheDuration
        self.avsync = avsync
        self.droppedFrames = droppedFrames
        self.abLoop = abLoop
        self.speed = speed
    }

    /// `wantsToPlay` is what the person last asked for (the controller's autoplay): mpv's pause
    /// property says that too, not whether frames move at this instant.
    public init(status: PlayerStatus, wantsToPlay: Bool) {
        self.init(isPaused: !wantsToPlay, position: status.position, duration: status.duration, volume: status.volume,
                  isMuted: status.isMuted, isLooping: status.isLooping, isEndReached: status.playbackState == .finished,
                  isPausedForCache: status.isRebuffering,
                  cacheDuration: status.bufferedDuration, avsync: status.avDifference, droppedFrames: status.droppedFrames,
                  abLoop: status.abLoop, speed: status.speed)
        bufferingPercent = status.bufferingProgress
        bufferedBytes = status.bufferedBytes
        isInputFinished = status.isInputFinished
        downloadSpeed = status.downloadSpeed
        cachedRanges = status.cachedRanges
        hlsBitrate = status.variant?.bandwidth
        videoSize = status.videoSize
    }

    /// mpv's demuxer-cache-state: what is read ahead of the position, in seconds and bytes. The
    /// seekable ranges are what the disk cache holds (a seek there needs no network); a seek
    /// reads again, nothing behind the position is kept in memory.
    var demuxerCacheState: JSONValue {
        let end = position + cacheDuration
        return .object([
            "cache-end": .number(end), "reader-pts": .number(position), "cache-duration": .number(cacheDuration),
            "fw-bytes": .number(Double(bufferedBytes)), "total-bytes": .number(Double(bufferedBytes)),
            "eof": .bool(isInputFinished), "eof-cached": .bool(isInputFinished), "bof-cached": .bool(false),
            "underrun": .bool(isPausedForCache), "idle": .bool(isInputFinished), "seekable-ranges": .array(cachedRanges.map { .object(["start": .number($0.start), "end": .number($0.end)]) }),
            "raw-input-rate": .number((downloadSpeed ?? 0).rounded()), "debug-ts-last": .number(end),
            "debug-low-level-seeks": .number(0), "debug-byte-level-seeks": .number(0),
        ])
    }
}

/// The playlist as its properties read it.
public struct PlaylistView: Equatable, Sendable {
    public struct Entry: Equatable, Sendable {
        public var url: String
        public var id: Int

        public init(url: String, id: Int) {
            self.url = url
            self.id = id
        }
    }

    public var entries: [Entry]
    /// The index of the entry playing; nil for none.
    public var playing: Int?

    public init(entries: [Entry] = [], playing: Int? = nil) {
        self.entries = entries
        self.playing = playing
    }

    /// mpv's playlist: `filename` and `id` of each entry, `current` and `playing` on the one playing.
    var json: JSONValue {
        .array(entries.indices.map { index in
            var fields: [String: JSONValue] = ["filename": .string(entries[index].url), "id": .number(Double(entries[index].id))]
            if index == playing {
                fields["current"] = .bool(true)
                fields["playing"] = .bool(true)
            }
            return .object(fields)
        })
    }
}

/// A property set through the IPC, as the player is to carry it out.
public enum PropertyChange: Equatable, Sendable {
    case pause(Bool)
    case position(Double)
    case volume(Int)
    case mute(Bool)
    case loopFile(Bool)
    /// nil: the point is cleared ("no").
    case abLoopA(Double?)
    case abLoopB(Double?)
    case speed(Double)
    /// Record to this file; "" stops recording.
    case streamRecord(String)
    /// Play audio track N (from 1).
    case audioTrack(Int)
    /// Show subtitle track N (from 1), or none.
    case subtitleTrack(Int?)
    /// Show subtitle track N (from 1) at the top as well, or none.
    case secondarySubtitleTrack(Int?)
    case subtitleVisibility(Bool)
    /// Seconds the subtitles come later by.
    case subtitleDelay(Double)
    /// Subtitle font sizes times this (0 to 100).
    case subtitleScale(Double)
    /// Where the subtitles sit, 0 (top) to 150.
    case subtitlePosition(Double)
    /// Play the playlist's entry at this index (from 0).
    case playlistPosition(Int)
    /// Seek to the start of the chapter at this index (from 0).
    case chapter(Int)
}

/// mpv's property names, read from a snapshot and parsed into changes: pure, tested by table.
public enum PlayerProperties {
    /// The properties read as mpv's are, reply for reply.
    public static let names = ["pause", "time-pos", "duration", "speed", "volume", "mute", "loop-file", "eof-reached",
                               "paused-for-cache", "cache-buffering-state", "demuxer-cache-duration", "demuxer-cache-state",
                               "cache-speed", "avsync", "frame-drop-count", "ab-loop-a", "ab-loop-b",
                               "stream-record", "aid", "sid", "secondary-sid", "sub-visibility", "sub-delay", "sub-text", "sub-start", "sub-end",
                               "secondary-sub-text", "sub-scale", "sub-pos",
                               "playlist", "playlist-pos",
                               "playlist-playing-pos", "playlist-count", "path", "filename", "media-title", "metadata",
                               "chapter", "chapters", "chapter-list"]
    /// Properties that differ from mpv's on purpose: `hls-bitrate` is the bandwidth of the HLS
    /// variant fetched (mpv's top-level one reads its option back; its track-list entries carry
    /// the bandwidth), and `video-params` has only `w` and `h` of mpv's fields, `track-list`
    /// a part of mpv's (TrackListEntry).
    public static let ownNames = ["hls-bitrate", "video-params", "track-list"]

    public static func value(of name: String, in snapshot: PropertySnapshot) -> Result<JSONValue, IPCError> {
        switch name {
        case "pause": return .success(.bool(snapshot.isPaused))
        case "time-pos": return .success(.number(snapshot.position))
        case "duration": return snapshot.duration.map { .success(.number($0)) } ?? .failure(.propertyUnavailable)
        case "speed": return .success(.number(snapshot.speed))
        case "volume": return .success(.number(Double(snapshot.volume)))
        case "mute": return .success(.bool(snapshot.isMuted))
        // mpv reads loop-file back as "inf" when on and false when off.
        case "loop-file": return .success(snapshot.isLooping ? .string("inf") : .bool(false))
        case "eof-reached": return .success(.bool(snapshot.isEndReached))
        case "paused-for-cache": return .success(.bool(snapshot.isPausedForCache))
        case "cache-buffering-state": return .success(.number(Double(snapshot.bufferingPercent)))
        case "demuxer-cache-duration": return .success(.number(snapshot.cacheDuration))
        case "demuxer-cache-state": return .success(snapshot.demuxerCacheState)
        // 0 for local files, as mpv's.
        case "cache-speed": return .success(.number((snapshot.downloadSpeed ?? 0).rounded()))
        case "avsync": return .success(.number(snapshot.avsync))
        case "frame-drop-count": return .success(.number(Double(snapshot.droppedFrames)))
        // An A-B loop point reads "no" when it is not set.
        case "ab-loop-a": return .success(snapshot.abLoop.a.map(JSONValue.number) ?? .string("no"))
        case "ab-loop-b": return .success(snapshot.abLoop.b.map(JSONValue.number) ?? .string("no"))
        case "stream-record": return .success(.string(snapshot.recordingPath))
        // A track reads its number, or false when none plays.
        case "aid": return .success(snapshot.audioTrack.map { .number(Double($0)) } ?? .bool(false))
        case "sid": return .success(snapshot.subtitleTrack.map { .number(Double($0)) } ?? .bool(false))
        case "secondary-sid": return .success(snapshot.secondarySubtitleTrack.map { .number(Double($0)) } ?? .bool(false))
        case "sub-visibility": return .success(.bool(snapshot.subtitlesVisible))
        case "sub-delay": return .success(.number(snapshot.subtitleDelay))
        case "sub-scale": return .success(.number(snapshot.subtitleScale))
        case "sub-pos": return .success(.number(snapshot.subtitlePosition))
        case "sub-text": return snapshot.subtitleText.map { .success(.string($0)) } ?? .failure(.propertyUnavailable)
        case "sub-start": return snapshot.subtitleStart.map { .success(.number($0)) } ?? .failure(.propertyUnavailable)
        case "sub-end": return snapshot.subtitleEnd.map { .success(.number($0)) } ?? .failure(.propertyUnavailable)
        case "secondary-sub-text": return snapshot.secondarySubtitleText.map { .success(.string($0)) } ?? .failure(.propertyUnavailable)
        // The variant's declared bandwidth, as mpv reports it; unavailable but for HLS.
        case "hls-bitrate": return snapshot.hlsBitrate.map { .success(.number(Double($0))) } ?? .failure(.propertyUnavailable)
        // The picture's size only, of mpv's fields: it changes at a variant switch.
        case "video-params":
            guard let size = snapshot.videoSize else { return .failure(.propertyUnavailable) }
            return .success(.object(["w": .number(Double(size.width)), "h": .number(Double(size.height))]))
        case "track-list": return .success(.array(snapshot.tracks.map(\.json)))
        case "playlist": return .success(snapshot.playlist.json)
        // -1 for none, as mpv's.
        case "playlist-pos", "playlist-playing-pos": return .success(.number(Double(snapshot.playlist.playing ?? -1)))
        case "playlist-count": return .success(.number(Double(snapshot.playlist.entries.count)))
        case "path": return .success(.string(snapshot.path))
        case "filename": return .success(.string(MediaMetadata.fileName(of: snapshot.path)))
        case "media-title": return .success(.string(MediaMetadata.mediaTitle(tags: snapshot.tags, url: snapshot.path)))
        // Keys as the file spells them; of a key given twice, the last.
        case "metadata": return .success(.object(Dictionary(snapshot.tags.map { ($0.key, .string($0.value)) }) { $1 }))
        // Unavailable for a file without chapters; -1 before the first, as mpv's.
        case "chapter":
            return MediaMetadata.chapter(at: snapshot.position, in: snapshot.chapters).map { .success(.number(Double($0))) }
                ?? .failure(.propertyUnavailable)
        case "chapters": return .success(.number(Double(snapshot.chapters.count)))
        case "chapter-list":
            return .success(.array(snapshot.chapters.map { .object(["title": .string($0.title ?? ""), "time": .number($0.start)]) }))
        default: return .failure(.propertyNotFound)
        }
    }

    public static func change(setting name: String, to value: JSONValue) -> Result<PropertyChange, IPCError> {
        switch name {
        case "pause":
            return flag(value).map { .success(.pause($0)) } ?? .failure(.unsupportedFormat)
        case "mute":
            return flag(value).map { .success(.mute($0)) } ?? .failure(.unsupportedFormat)
        case "time-pos":
            guard let seconds = number(value), seconds.isFinite else { return .failure(.unsupportedFormat) }
            return .success(.position(seconds))
        case "volume":
            // mpv takes up to 130 (its volume-max); HPlayer's scale ends at 100.
            guard let level = number(value), (0...130).contains(level) else { return .failure(.unsupportedFormat) }
            return .success(.volume(Int(saturating: min(100, level))))
        case "loop-file":
            switch value {
            case .bool(let on): return .success(.loopFile(on))
            case .string("inf"), .string("yes"): return .success(.loopFile(true))
            case .string("no"): return .success(.loopFile(false))
            default: return .failure(.unsupportedFormat)
            }
        case "ab-loop-a", "ab-loop-b":
            let point: Double??
            if value == .string("no") {
                point = .some(nil)
            } else if let seconds = number(value), seconds.isFinite, seconds >= 0 {
                point = .some(seconds)
            } else {
                point = nil
            }
            guard let point else { return .failure(.unsupportedFormat) }
            return .success(name == "ab-loop-a" ? .abLoopA(point) : .abLoopB(point))
        case "stream-record":
            return value.string.map { .success(.streamRecord($0)) } ?? .failure(.unsupportedFormat)
        case "aid", "sid", "secondary-sid":
            let subtitles = { (number: Int?) -> PropertyChange? in
                switch name {
                case "sid": .subtitleTrack(number)
                case "secondary-sid": .secondarySubtitleTrack(number)
                default: number.map(PropertyChange.audioTrack)
                }
            }
            if value == .string("no") || value == .bool(false) {
                // Sound cannot be turned off while playing (only --no-audio, at the start).
                return subtitles(nil).map { .success($0) } ?? .failure(.accessDenied)
            }
            guard let number = number(value), number >= 1, number == number.rounded(), number < 10_000,
                  let change = subtitles(Int(number)) else {
                return .failure(.unsupportedFormat)
            }
            return .success(change)
        case "sub-visibility":
            return flag(value).map { .success(.subtitleVisibility($0)) } ?? .failure(.unsupportedFormat)
        case "sub-delay":
            guard let seconds = number(value), abs(seconds) <= 86_400 else { return .failure(.unsupportedFormat) }
            return .success(.subtitleDelay(seconds))
        case "sub-scale":
            guard let scale = number(value), (0...100).contains(scale) else { return .failure(.unsupportedFormat) }
            return .success(.subtitleScale(scale))
        case "sub-pos":
            guard let position = number(value), (0...150).contains(position) else { return .failure(.unsupportedFormat) }
            return .success(.subtitlePosition(position))
        case "playlist-pos":
            guard let index = number(value), index == index.rounded(), abs(index) < 1e9 else { return .failure(.unsupportedFormat) }
            return .success(.playlistPosition(Int(index)))
        case "chapter":
            guard let index = number(value), index == index.rounded(), abs(index) < 1e9 else { return .failure(.unsupportedFormat) }
            return .success(.chapter(Int(index)))
        case "speed":
            // mpv takes 0.01 to 100 and calls other values a wrong format; HPlayer keeps the pitch
            // over PlaybackSpeed.range only, and refuses the rest of mpv's range.
            guard let factor = number(value), (0.01...100).contains(factor) else { return .failure(.unsupportedFormat) }
            return PlaybackSpeed.range.contains(factor) ? .success(.speed(factor)) : .failure(.accessDenied)
        case _ where names.contains(name):
            return .failure(.accessDenied)
        default:
            return .failure(.propertyNotFound)
        }
    }

    /// A value `add` or `multiply` reached, kept in the property's range as mpv keeps it (volume
    /// 0 to 100, speed within what the tempo stage takes, a position from 0).
    public static func clamped(_ name: String, _ value: Double) -> Double {
        switch name {
        case "volume": return min(100, max(0, value))
        case "speed": return min(PlaybackSpeed.range.upperBound, max(PlaybackSpeed.range.lowerBound, value))
        case "time-pos", "ab-loop-a", "ab-loop-b": return max(0, value)
        default: return value
        }
    }

    private static func flag(_ value: JSONValue) -> Bool? {
        switch value {
        case .bool(let on): return on
        case .string("yes"): return true
        case .string("no"): return false
        default: return nil
        }
    }

    private static func number(_ value: JSONValue) -> Double? {
        value.number ?? value.string.flatMap(Double.init)
    }
}
