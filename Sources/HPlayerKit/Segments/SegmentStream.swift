/// Our HLS and DASH client. A front end (HLSManifests, DASHManifests) reads the manifest into
/// this stream's model: a presentation of variants and renditions (an HLS master playlist; a
/// DASH MPD's Representations), and a variant's timeline of segments (an HLS media playlist; a
/// Representation's segments over every Period). The rest is the same for both.
///
/// It fetches the manifest (and, from a master playlist, the one variant chosen by
/// `--hls-bitrate`) through the I/O layer and reads the variant's segments one after
/// another, on one connection, as one stream of bytes that libavformat demuxes. Nothing is
/// fetched from a variant that is not played. A live playlist is reloaded as it is played out,
/// starting its hold-back (three target durations, or a DASH latency target) from its live
/// edge. AES-128 segments are decrypted as they
/// arrive (SegmentDecryptor), each key fetched once. fMP4 segments follow their initialization
/// section (EXT-X-MAP), fetched once: the stream is then sectioned, a section per
/// initialization section, each opened by its own demuxer. SAMPLE-AES segments and encrypted
/// fMP4 are not read yet: `unsupportedFeature` says so, and the caller leaves an HLS URL to
/// libavformat (a DASH one fails).
///
/// The variant: the one `--hls-bitrate` picks; by default (`auto`) the bitrate policy's, the
/// first from an initial estimate (StartupEstimate: the server's estimate an earlier session
/// saved in the disk cache's index, else the master playlist's download), then one per segment.
/// The policy running, each segment is fetched whole before any of it is handed out, so that
/// one too slow to arrive before the buffer runs dry is given up for a lower variant's. A segment that
/// cannot be opened after the I/O layer's retries is fetched from another variant, and only then
/// skipped, with a warning. Both happen at a segment boundary: the byte stream goes on with the
/// other variant's segment, which libavformat and the decoder take as a change of picture size.
/// Positions: each segment's bytes follow the last one's; a seek by time starts the segment it
/// lands in at a fresh position past everything read, so libavformat's view stays consistent.
package final class SegmentStream: TimeSeekableByteSource, @unchecked Sendable {
    package let url: String
    let options: NetworkOptions
    let http: any HTTPResource
    /// What reads the manifests (HLS playlists, DASH MPDs) into this stream's model.
    let front: any ManifestFrontEnd

    // The read thread's own.
    var playlistURL = ""
    var playlist = HLSMediaPlaylist()
    /// The index in `playlist.segments` of the segment being read; nil before the first.
    var segmentIndex: Int?
    /// The sequence number of the segment being read, which a live reload keeps its place by.
    var sequenceNumber = 0
    /// Where the current segment's bytes begin in the stream, and how far it has been read.
    var segmentStart: Int64 = 0
    var segmentOffset: Int64 = 0
    /// Past every byte handed out so far: where a jump puts the next segment.
    var highestPosition: Int64 = 0
    /// Where the segment's bytes begin in its resource (a BYTERANGE's offset, else 0).
    var segmentBase: Int64 = 0
    /// Segments skipped one after another: past `skipLimit`, the stream fails instead of
    /// skipping through a whole outage to a false end.
    var skippedInARow = 0
    static let skipLimit = 3
    /// Live playlist reloads that failed one after another, and how many are ridden out.
    var failedReloads = 0
    static let reloadFailureLimit = 5
    /// Since when the live segment being opened has been waited for (HTTP 404).
    var liveSegmentWait: Double?
    /// The current segment's decryption (AES-128), its plaintext not handed out yet, and whether
    /// its last block has been decrypted.
    var decryptor: SegmentDecryptor?
    var plaintext: [UInt8] = []
    var plaintextIndex = 0
    var isDecryptionFinished = false
    /// Keys fetched, by URL: each is fetched once, and held in memory alone.
    var keys: [String: [UInt8]] = [:]
    /// Keys that could not be fetched, by URL, and why: asked for once. A segment under one is
    /// not skipped, since every segment under it would fail alike: the stream fails.
    var failedKeys: [String: MediaError] = [:]
    /// The URLs refused so far, each told once, and how many are told a line each at most (a
    /// hostile playlist may list thousands).
    var toldRefusals: Set<String> = []
    static let refusalsTold = 20
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
    /// auto: the segment being read, fetched whole before any of it is handed out, so that one
    /// too slow to arrive in time is given up for a lower variant's with none of it in the
    /// stream (SegmentAbandonment); how much of it has been handed out; whether it is all here.
    var wholeSegment: [UInt8] = []
    var wholeSegmentRead = 0
    var isWholeSegmentFetched = false
    /// The variant the stream was on before a switch, until the first segment of the new one
    /// has been seen to start with a key frame (SegmentKeyFrame): where it goes back to if not.
    var beforeSwitch: (playlistURL: String, playlist: HLSMediaPlaylist, variant: Int)?
    /// The bytes of the switches made (the read thread's, and the demuxer's reading on it): in
    /// stream positions, from each switch's first byte to the end of its first segment; the
    /// last few. The pictures there that the variant before showed are not shown again
    /// (SwitchOverlap).
    var switchPositions: [Range<Int64>] = []
    static let switchPositionsKept = 4
    /// The current segment's first bytes that are another segment's video from its last key
    /// frame (a switch to a segment that does not start with one): not the segment's download.
    var keyFramePrefixLength = 0
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
    /// The master playlist and the index of the variant playing; nil for a media playlist.
    var master: HLSMasterPlaylist?
    var variantIndex = 0
    /// The media playlists of the other variants fetched for a failed segment, by index.
    var alternatePlaylists: [Int: (url: String, playlist: HLSMediaPlaylist)] = [:]
    /// `auto`: the bitrate policy's run, which picks each next segment's variant.
    var abr: ABRRun?
    /// The last playlist fetched over the network, as a throughput sample: the first variant's
    /// estimate when no earlier session left one.
    var playlistDownload: ThroughputSample?
    /// Where throughput estimates are kept between sessions (the disk cache's index), the
    /// server they are kept under, and the one this session saved last.
    let store: CacheStore?
    let estimateHost: String?
    var savedEstimate: Double?
    /// Seconds spent waiting on the network for the current segment (opening it, and reads): its
    /// download time, for the throughput sample with its bytes. Left out: the time the reader
    /// spent elsewhere, and the fetches of its key and initialization section, whose bytes are
    /// not counted either (hls.js too samples the fragments' loads alone).
    var segmentNetworkSeconds = 0.0
    /// How full the player's buffer is, for the bitrate policy; called on the read thread.
    package var bufferLevel: (() -> BufferLevel)?
    /// The segment being read and the playlist URL it resolves against (another variant's, after
    /// a failover): where an encrypted segment is fetched again for a seek back within it.
    var openSegment: (segment: HLSSegment, base: String)?
    /// fMP4: the initialization section the current section began with (its URL and range), its
    /// bytes and how many have been handed out, whether the section has handed out any byte,
    /// and whether it has ended where another initialization section begins.
    var sectionInit: String?
    var initSection: [UInt8] = []
    var initSectionIndex = 0
    var sectionHasBytes = false
    package internal(set) var isAtSectionEnd = false
    package internal(set) var sectionTimeOffset = 0.0
    /// The key of the section's samples in Common Encryption, for its demuxer; nil: clear.
    package internal(set) var sectionDecryptionKey: [UInt8]?
    /// The ClearKey keys known: the user's, then those license servers gave; an audio
    /// rendition's stream shares its variant's.
    package let keyRing: ClearKeyRing
    /// Initialization sections fetched, by URL and range: each is fetched once.
    var initSections: [String: [UInt8]] = [:]
    package internal(set) var isSectioned = false
    /// Set by `open` when the variant needs what this client cannot do yet; nothing is read then.
    package internal(set) var unsupportedFeature: String?
    /// The media playlist of the variant's audio rendition, played alongside as a stream of its
    /// own, when the variant's AUDIO group has one with a URI (set by `open`).
    package internal(set) var audioRenditionURL: String?
    /// The audio rendition playing, and the choice its stream follows (set by `open`, and as
    /// the variant moves to another AUDIO group).
    var audioRendition: HLSRendition?
    package let audioRenditionChoice = AudioRenditionChoice()
    /// An audio rendition's stream: the choice it follows, and a rendition it could not move to.
    let followedRendition: AudioRenditionChoice?
    var refusedRendition: String?
    /// The master playlist's variants, the one playing marked (set by `open`; nil for a media playlist).
    package internal(set) var variants: [VariantInfo]?
    /// The text renditions to read alongside, resolved: a DASH presentation's text sets, the
    /// SUBTITLES group an HLS variant names (set by `open`).
    package internal(set) var textRenditions: [(rendition: HLSRendition, url: String)] = []
    /// A DASH manifest's Periods, sets and Representations, those fetched marked (set by `open`).
    package var manifestPeriods: [ManifestPeriod]? {
        (front as? DASHManifests)?.periods(playing: [playlistURL] + (audioRenditionURL.map { [$0] } ?? []) + textRenditions.map(\.url))
    }
    /// What the disk cache holds of the variant playing.
    package let cacheMap: CacheMap?

    /// `following`: for an audio rendition's stream, the choice of rendition it follows as the
    /// variant playing changes AUDIO group.
    /// `keyRing`: the ClearKey keys of the variant's stream, for its audio rendition's.
    package init(url input: String, options: NetworkOptions = NetworkOptions(), following: AudioRenditionChoice? = nil,
                 keyRing: ClearKeyRing? = nil) {
        // A manifest on this machine is read as a file URL, so what it names resolves against it.
        let isLocal = !NetworkOptions.isHTTP(input)
        let url = isLocal ? LocalDocumentResource.fileURL(for: input) : input
        self.url = url
        self.options = options
        self.keyRing = keyRing ?? ClearKeyRing(options.clearKeys)
        followedRendition = following
        front = NetworkOptions.isDASH(url) ? DASHManifests(audioLanguages: options.audioLanguages,
                                                                          hasClearKeys: !options.clearKeys.isEmpty || options.clearKeyServer != nil) : HLSManifests()
        http = isLocal ? LocalDocumentResource(url: url, options: options) : options.httpResource(for: url)
        store = options.cache?.store()
        cacheMap = store.map { CacheMap(store: $0) }
        estimateHost = HLSURL.server(of: url)
    }

    deinit {
        scratch.deallocate()
        chunk.deallocate()
    }

    package var info: ByteSourceInfo { ByteSourceInfo(contentLength: nil, mimeType: nil, acceptsRanges: false) }

    package var duration: Double? { playlist.isLive ? nil : playlist.duration }

    /// A live playlist: how far behind its live edge playback began (the segments from the first
    /// fetched to the playlist's end when it opened, three target durations or a little more),
    /// the latency live playback keeps to. Nil for a playlist that has ended, or that gives no
    /// durations.
    var liveHoldBack: Double?
    /// Live, with a clock to go by: the seconds of the first segment before where playback
    /// starts, decoded and dropped (`SegmentStream.liveStart`).
    var liveStartSkip: Double?
    /// A text rendition's stream: each segment ends a section (a WebVTT file is whole in itself).
    package var endsSectionAtEachSegment = false
    /// The discontinuity sequence number of the segment reading started at (the open, the
    /// latest seek): the one a playback timeline starts on.
    package private(set) var startDiscontinuity = 0

    package func open(at offset: Int64) throws(MediaError) {
        switch try manifest(at: url) {
        case let .master(master):
            guard var chosen = options.hlsBitrate.choose(among: master.variants) else {
                throw MediaError(input: url, reason: "a master playlist with no variant")
            }
            if options.hlsBitrate == .auto,
               var run = ABRRun(policy: options.hlsABR, variants: master.variants, renditions: master.renditions, playing: chosen) {
                let start = StartupEstimate.initial(saved: estimateHost.flatMap { store?.savedThroughput(for: $0) },
                                                    playlist: playlistDownload, now: WallClock.now())
                chosen = run.startingVariant(estimate: start?.bitsPerSecond)
                if let start {
                    Log.network.info("\(url): starting from \(start.origin.rawValue) estimate, \(DecimalText.fixed(start.bitsPerSecond / 1e6, places: 2)) Mb/s")
                }
                abr = run
            }
            let variant = master.variants[chosen]
            variants = master.variants.enumerated().map { index, variant in
                VariantInfo(bandwidth: variant.bandwidth, width: variant.resolution?.width, height: variant.resolution?.height,
                            codecs: variant.codecs, isPlaying: index == chosen)
            }
            if master.renditions.contains(where: { $0.kind == .video && $0.uri != nil && $0.groupID == variant.videoGroup }) {
                unsupportedFeature = "separate video renditions (EXT-X-MEDIA TYPE=VIDEO with a URI)"
                return
            }
            Log.network.info("\(url): playing variant \(chosen + 1) of \(master.variants.count): \(variants![chosen].summary)")
            if let rendition = master.audioRendition(of: variant, languages: options.audioLanguages), let uri = rendition.uri {
                audioRendition = rendition
                audioRenditionURL = HLSURL.resolve(uri, against: url)
                audioRenditionChoice.wanted = audioRenditionURL
                Log.network.info("\(url): the sound is the audio rendition \"\(rendition.name)\"\(rendition.language.map { " (\($0))" } ?? "")")
            }
            // DASH: every text set (one group); HLS: the variant's SUBTITLES group.
            textRenditions = master.renditions.compactMap { rendition in
                guard rendition.kind == .subtitles, let uri = rendition.uri,
                      front is DASHManifests || rendition.groupID == variant.subtitlesGroup else { return nil }
                return (rendition, HLSURL.resolve(uri, against: url))
            }
            self.master = master
            variantIndex = chosen
            (playlistURL, playlist) = try loadVariant(chosen, of: master)
            noteVariant()
        case let .media(media):
            playlistURL = url
            playlist = media
        }
        guard !playlist.segments.isEmpty || playlist.isLive else { throw MediaError(input: playlistURL, reason: "a playlist with no segment") }
        unsupportedFeature = Self.unsupportedFeature(of: playlist)
        if let feature = unsupportedFeature {
            guard front.leavesUnreadToLibavformat else { throw MediaError(input: url, reason: "\(feature): not read by this client") }
            return try checkLeftToLibavformat()
        }
        isSectioned = Self.isFragmented(playlist)
        sequenceNumber = playlist.mediaSequence - 1  // an empty live playlist waits for its first segment
        publishCacheLayout()
        let (first, skip) = Self.liveStart(of: playlist, target: liveTarget)
        if playlist.isLive {
            // At least the hold-back: a playlist just begun lists fewer, an empty one none.
            let listed = playlist.segments[first...].reduce(0) { $0 + $1.duration } + (playlist.liveEdgeLead ?? 0) - skip
            let holdBack = max(listed, liveTarget)
            liveHoldBack = holdBack > 0 ? holdBack : nil
            liveStartSkip = skip > 0 ? skip : nil
        }
        if first < playlist.segments.count { startDiscontinuity = playlist.segments[first].discontinuitySequence }
        try startSegment(at: first)
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(MediaError) -> Int {
        while true {
            if isAtSectionEnd { return 0 }
            // Whole before any of it, its initialization section included: one given up leaves
            // nothing in the stream.
            if fetchesWholeSegments, !isWholeSegmentFetched, segmentIndex != nil {
                do {
                    try fetchWholeSegment()
                    try checkSwitchedSegmentStart()
                } catch {
                    try skip(http.url, error)
                    guard try advance() else { return 0 }
                }
                continue
            }
            if initSectionIndex < initSection.count {
                let count = min(buffer.count, initSection.count - initSectionIndex)
                initSection.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + initSectionIndex, byteCount: count) }
                initSectionIndex += count
                sectionHasBytes = true
                return count
            }
            let count: Int
            do {
                count = fetchesWholeSegments ? takeFromWholeSegment(into: buffer) : try readSegment(into: buffer)
            } catch {
                try skip(http.url, error)
                guard try advance() else { return 0 }
                continue
            }
            if count > 0 {
                skippedInARow = 0
                sectionHasBytes = true
                segmentOffset += Int64(count)
                highestPosition = max(highestPosition, segmentStart + segmentOffset)
                return count
            }
            guard try advance() else { return 0 }
        }
    }

    package func seek(to offset: Int64) throws(MediaError) {
        // Within the segment being read (libavformat looking back a little while probing).
        guard offset >= segmentStart else {
            throw MediaError(input: url, reason: "cannot seek back before the segment being read")
        }
        if fetchesWholeSegments {
            if !isWholeSegmentFetched { try fetchWholeSegment() }
            guard offset - segmentStart <= Int64(wholeSegment.count) else { throw MediaError(input: url, reason: "seek past the end of a segment") }
            segmentOffset = offset - segmentStart
            wholeSegmentRead = Int(segmentOffset)
            return
        }
        guard decryptor != nil else {
            try http.seek(to: segmentBase + offset - segmentStart)
            segmentOffset = offset - segmentStart
            return
        }
        // Ciphertext is decrypted in order: back means from the segment's start again.
        if offset < segmentStart + segmentOffset, let (segment, base) = openSegment {
            try open(segment, base: base)
            segmentOffset = 0
        }
        while segmentStart + segmentOffset < offset {
            let count = try readSegment(into: UnsafeMutableRawBufferPointer(rebasing: scratch[..<Int(min(Int64(scratch.count), offset - segmentStart - segmentOffset))]))
            guard count > 0 else { throw MediaError(input: url, reason: "seek past the end of a segment") }
            segmentOffset += Int64(count)
        }
    }

    package func prepareSeek(toTime seconds: Double) throws(MediaError) -> Int64 {
        var index = 0
        var start = 0.0
        while index < playlist.segments.count - 1, start + playlist.segments[index].duration <= seconds {
            start += playlist.segments[index].duration
            index += 1
        }
        beforeSwitch = nil
        // A new section starts with the segment, its initialization section first.
        sectionInit = nil
        beginSection()
        if index < playlist.segments.count { startDiscontinuity = playlist.segments[index].discontinuitySequence }
        // Far past what was read: libavformat then seeks instead of reading forward to get there.
        try startSegment(at: index, position: highestPosition + (1 << 32))
        return segmentStart
    }

    /// The segment being read, and where it starts on its playlist's timeline (seconds).
    package var segmentBeingRead: (segment: HLSSegment, start: Double)? {
        guard let segmentIndex, segmentIndex < playlist.segments.count else { return nil }
        return (playlist.segments[segmentIndex], playlist.segments[..<segmentIndex].reduce(0) { $0 + $1.duration })
    }

    /// The discontinuity sequence number of the segment being read.
    package var discontinuityBeingRead: Int? {
        guard let segmentIndex, segmentIndex < playlist.segments.count else { return nil }
        return playlist.segments[segmentIndex].discontinuitySequence
    }

    package func beginSection() {
        isAtSectionEnd = false
        sectionHasBytes = false
    }

    package func cancel() { http.cancel() }

    package func close() { http.close() }

    // MARK: Segments

    /// How far behind the live edge playback starts and keeps: the manifest's hold-back (a
    /// DASH latency target), else three target durations (RFC 8216's default).
    var liveTarget: Double { playlist.holdBack ?? 3 * playlist.targetDuration }

    /// Where playback starts: VOD, the first segment. Live, the segment `target` behind the live
    /// edge: the playlist's end, or past it by its `liveEdgeLead`; with a lead (a clock to go
    /// by), also how far into that segment, so that playback starts `target` behind the edge
    /// itself, not up to a segment more.
    static func liveStart(of playlist: HLSMediaPlaylist, target: Double) -> (index: Int, skip: Double) {
        guard playlist.isLive else { return (0, 0) }
        let back = target - (playlist.liveEdgeLead ?? 0)
        var remaining = 0.0
        var index = playlist.segments.count
        while index > 0, remaining < back - 0.001 {
            index -= 1
            remaining += playlist.segments[index].duration
        }
        guard playlist.liveEdgeLead != nil, index < playlist.segments.count else { return (index, 0) }
        return (index, min(max(0, remaining - back), playlist.segments[index].duration))
    }

    /// Opens segment `index`, or the first after it that can be fetched.
    private func startSegment(at index: Int, position: Int64? = nil) throws(MediaError) {
        var index = index
        while true {
            if index >= playlist.segments.count {
                guard playlist.isLive, let found = try awaitSegment(after: sequenceNumber) else { return finish() }
                index = found
            }
            let segment = playlist.segments[index]
            segmentIndex = index
            sequenceNumber = segment.sequenceNumber
            segmentStart = position ?? (segmentStart + segmentOffset)
            segmentOffset = 0
            segmentNetworkSeconds = 0
            do {
                try open(segment)
                liveSegmentWait = nil
                return
            } catch {
                if try waitsForLiveSegment(at: index, failure: error) { continue }
                if openFromAlternate(index, failure: error) { return }
                try skip(HLSURL.resolve(segment.uri, against: playlistURL), error)
                index += 1
            }
        }
    }

    /// A live segment at the end of the manifest not found yet, where the manifest works segments
    /// out from a clock (DASH: its times say a segment is there a little before the packager has
    /// written it): waited for, up to two target durations, not skipped. True to try it again.
    /// An HLS playlist lists what is there: a segment missing from it goes to another variant.
    private func waitsForLiveSegment(at index: Int, failure: MediaError) throws(MediaError) -> Bool {
        guard front.publishesSegmentsByClock, playlist.isLive, index >= playlist.segments.count - 2, failure.reason.hasPrefix("HTTP 404"),
              !http.isCancelled else {
            liveSegmentWait = nil
            return false
        }
        if liveSegmentWait == nil { liveSegmentWait = MonotonicClock.now() }
        guard let began = liveSegmentWait, MonotonicClock.now() - began < 2 * max(playlist.targetDuration, 1) else {
            liveSegmentWait = nil
            return false
        }
        try wait(Self.liveSegmentRetryInterval)
        return true
    }

    static let liveSegmentRetryInterval = 0.2

    /// The segment has ended: on to the next. False at the end of the stream.
    private func advance() throws(MediaError) -> Bool {
        guard let index = segmentIndex else { return false }
        if let next = adaptVariant(after: index) ?? followRendition(after: index) {
            try startSegment(at: next)
            return segmentIndex != nil
        }
        try startSegment(at: index + 1)
        return segmentIndex != nil
    }

    private func finish() {
        segmentIndex = nil
    }

    /// A segment failed after the I/O layer's retries: skipped with a warning, unless too many
    /// in a row failed (the network is gone) or the stream was cancelled.
    private func skip(_ segmentURL: String, _ error: MediaError) throws(MediaError) {
        if http.isCancelled || failedKeys.values.contains(error) { throw error }
        skippedInARow += 1
        guard skippedInARow <= Self.skipLimit else {
            throw MediaError(input: segmentURL, reason: "\(error.reason) (\(skippedInARow) segments in a row failed)")
        }
        Log.network.warning("\(segmentURL): \(error.reason); skipping the segment")
    }

}
