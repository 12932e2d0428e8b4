/// A byte source that seeks by time: the source asks it for the place of a time, then reads on
/// from there (an HLS stream jumps to a segment).
package protocol TimeSeekableByteSource: ByteSource {
    /// Seconds from the start, when known (VOD).
    var duration: Double? { get }
    /// Makes the next bytes those of the segment holding `seconds` (from the start); returns the
    /// byte offset those bytes begin at, for the reader's own position.
    func prepareSeek(toTime seconds: Double) throws(MediaError) -> Int64
    /// Whether the bytes are initialization sections each followed by its fragments (fMP4): a
    /// demuxer reads them front to back, and is opened anew on each section: after a seek by
    /// time, and where another initialization section begins (`isAtSectionEnd`).
    var isSectioned: Bool { get }
    /// The bytes handed out so far end where another initialization section begins: reads
    /// return 0 until `beginSection`.
    var isAtSectionEnd: Bool { get }
    /// Lets the next section be read, from its initialization section.
    func beginSection()
    /// Seconds added to the timestamps of the section last begun (a later DASH Period's media
    /// times, which start anew, onto the presentation's).
    var sectionTimeOffset: Double { get }
}

/// Our HLS client: fetches the playlist (and, from a master playlist, the one variant chosen by
/// `--hls-bitrate`) through the I/O layer and reads the variant's MPEG-TS segments one after
/// another, on one connection, as one stream of bytes that libavformat demuxes. Nothing is
/// fetched from a variant that is not played. A live playlist is reloaded as it is played out,
/// starting three target durations from its live edge. AES-128 segments are decrypted as they
/// arrive (SegmentDecryptor), each key fetched once. fMP4 segments follow their initialization
/// section (EXT-X-MAP), fetched once: the stream is then sectioned, a section per
/// initialization section, each opened by its own demuxer. SAMPLE-AES segments and encrypted
/// fMP4 are not read yet: `unsupportedFeature` says so, and the caller leaves the URL to
/// libavformat.
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
    private let options: NetworkOptions
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
    private var highestPosition: Int64 = 0
    /// Where the segment's bytes begin in its resource (a BYTERANGE's offset, else 0).
    private var segmentBase: Int64 = 0
    /// Segments skipped one after another: past `skipLimit`, the stream fails instead of
    /// skipping through a whole outage to a false end.
    private var skippedInARow = 0
    static let skipLimit = 3
    /// Live playlist reloads that failed one after another, and how many are ridden out.
    private var failedReloads = 0
    static let reloadFailureLimit = 5
    /// Since when the live segment being opened has been waited for (HTTP 404).
    private var liveSegmentWait: Double?
    /// The current segment's decryption (AES-128), its plaintext not handed out yet, and whether
    /// its last block has been decrypted.
    private var decryptor: SegmentDecryptor?
    private var plaintext: [UInt8] = []
    private var plaintextIndex = 0
    private var isDecryptionFinished = false
    /// Keys fetched, by URL: each is fetched once, and held in memory alone.
    private var keys: [String: [UInt8]] = [:]
    /// Keys that could not be fetched, by URL, and why: asked for once. A segment under one is
    /// not skipped, since every segment under it would fail alike: the stream fails.
    private var failedKeys: [String: MediaError] = [:]
    /// The URLs refused so far, each told once, and how many are told a line each at most (a
    /// hostile playlist may list thousands).
    private var toldRefusals: Set<String> = []
    static let refusalsTold = 20
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
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
    private var alternatePlaylists: [Int: (url: String, playlist: HLSMediaPlaylist)] = [:]
    /// `auto`: the bitrate policy's run, which picks each next segment's variant.
    var abr: ABRRun?
    /// The last playlist fetched over the network, as a throughput sample: the first variant's
    /// estimate when no earlier session left one.
    private var playlistDownload: ThroughputSample?
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
    private var sectionInit: String?
    private(set) var initSection: [UInt8] = []
    private var initSectionIndex = 0
    private var sectionHasBytes = false
    package private(set) var isAtSectionEnd = false
    package private(set) var sectionTimeOffset = 0.0
    /// Initialization sections fetched, by URL and range: each is fetched once.
    private var initSections: [String: [UInt8]] = [:]
    package private(set) var isSectioned = false
    /// Set by `open` when the variant needs what this client cannot do yet; nothing is read then.
    package private(set) var unsupportedFeature: String?
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
    package private(set) var variants: [VariantInfo]?
    /// A DASH manifest's Periods, sets and Representations, those fetched marked (set by `open`).
    package var manifestPeriods: [ManifestPeriod]? {
        (front as? DASHManifests)?.periods(playing: [playlistURL] + (audioRenditionURL.map { [$0] } ?? []))
    }
    /// What the disk cache holds of the variant playing.
    package let cacheMap: CacheMap?

    /// `following`: for an audio rendition's stream, the choice of rendition it follows as the
    /// variant playing changes AUDIO group.
    package init(url: String, options: NetworkOptions = NetworkOptions(), following: AudioRenditionChoice? = nil) {
        self.url = url
        self.options = options
        followedRendition = following
        front = NetworkOptions.isDASH(url) ? DASHManifests(audioLanguages: options.audioLanguages) : HLSManifests()
        http = options.httpResource(for: url)
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
    private(set) var liveHoldBack: Double?

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
        let first = firstSegmentIndex()
        if playlist.isLive {
            // At least the hold-back: a playlist just begun lists fewer, an empty one none.
            let holdBack = max(playlist.segments[first...].reduce(0) { $0 + $1.duration }, liveTarget)
            liveHoldBack = holdBack > 0 ? holdBack : nil
        }
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
        // Far past what was read: libavformat then seeks instead of reading forward to get there.
        try startSegment(at: index, position: highestPosition + (1 << 32))
        return segmentStart
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
    private var liveTarget: Double { playlist.holdBack ?? 3 * playlist.targetDuration }

    /// VOD: the first segment. Live: the one `liveTarget` from the live edge.
    private func firstSegmentIndex() -> Int {
        guard playlist.isLive else { return 0 }
        var remaining = 0.0
        var index = playlist.segments.count
        while index > 0, remaining < liveTarget - 0.001 {
            index -= 1
            remaining += playlist.segments[index].duration
        }
        return index
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

    /// A live segment at the end of the manifest not found yet (a DASH manifest's times say a
    /// segment is there a little before the packager has written it): waited for, up to two
    /// target durations, not skipped. True to try it again.
    private func waitsForLiveSegment(at index: Int, failure: MediaError) throws(MediaError) -> Bool {
        guard playlist.isLive, index >= playlist.segments.count - 2, failure.reason.hasPrefix("HTTP 404"), !http.isCancelled else { return false }
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

    // MARK: Variants

    /// The URL and media playlist of variant `index`.
    private func loadVariant(_ index: Int, of master: HLSMasterPlaylist) throws(MediaError) -> (String, HLSMediaPlaylist) {
        let variantURL = HLSURL.resolve(master.variants[index].uri, against: url)
        guard case let .media(media) = try manifest(at: variantURL) else {
            throw MediaError(input: variantURL, reason: "a variant's playlist is a master playlist")
        }
        return (variantURL, media)
    }

    /// What in `playlist` this client cannot read yet; nil when it can read it all.
    static func unsupportedFeature(of playlist: HLSMediaPlaylist) -> String? {
        if playlist.segments.contains(where: { $0.key?.method == .sampleAES }) { return "SAMPLE-AES segments" }
        if playlist.segments.contains(where: { $0.map != nil && $0.key != nil }) { return "encrypted fMP4 segments" }
        if isFragmented(playlist), playlist.segments.contains(where: { $0.map == nil }) {
            return "fMP4 segments (EXT-X-MAP) mixed with others"
        }
        return nil
    }

    /// Whether the playlist mixes SAMPLE-AES segments with others: libavformat 5.1 sets up its
    /// decryption only when the segment it starts at is SAMPLE-AES, and dereferences NULL at the
    /// first encrypted sample otherwise (`ffmpeg -i` crashes too). Where it starts (a live
    /// window's end, a seek) is not ours to say, so no such playlist is left to it.
    static func mixesSampleAES(_ playlist: HLSMediaPlaylist) -> Bool {
        let encrypted = playlist.segments.filter { $0.key?.method == .sampleAES }.count
        return encrypted > 0 && encrypted < playlist.segments.count
    }

    /// Before the stream is left to libavformat: refuses what would crash it, in the variant
    /// played and in every other (its HLS demuxer reads them all).
    private func checkLeftToLibavformat() throws(MediaError) {
        let refusal = "SAMPLE-AES segments mixed with others: not read (libavformat 5.1's HLS demuxer crashes on them)"
        if Self.mixesSampleAES(playlist) { throw MediaError(input: playlistURL, reason: refusal) }
        guard let master else { return }
        for index in master.variants.indices where index != variantIndex {
            let (otherURL, media) = try loadVariant(index, of: master)
            if Self.mixesSampleAES(media) { throw MediaError(input: otherURL, reason: refusal) }
        }
    }

    /// Whether the playlist's segments are fMP4 fragments, each following an initialization section.
    static func isFragmented(_ playlist: HLSMediaPlaylist) -> Bool {
        playlist.segments.contains { $0.map != nil }
    }

    /// Another variant's playlist, to switch to: refused when this client cannot read it.
    func loadOtherVariant(_ index: Int, of master: HLSMasterPlaylist) throws(MediaError) -> (String, HLSMediaPlaylist) {
        let (variantURL, media) = try loadVariant(index, of: master)
        if let feature = Self.unsupportedFeature(of: media) {
            throw MediaError(input: variantURL, reason: "\(feature): not read by this client")
        }
        if !media.segments.isEmpty, Self.isFragmented(media) != isSectioned {
            throw MediaError(input: variantURL, reason: "its segments are not of the format playing (fMP4 or MPEG-TS)")
        }
        return (variantURL, media)
    }

    /// The sequence number and start time (seconds from the playlist's first segment) of the segment after `index`.
    func nextSegmentStart(after index: Int) -> (sequence: Int, start: Double) {
        let start = playlist.segments.prefix(index + 1).reduce(0) { $0 + $1.duration }
        return (playlist.segments[index].sequenceNumber + 1, start)
    }

    /// The segment of `playlist` numbered `sequence` (variants of one stream number theirs
    /// alike), else the one holding `start` seconds (VOD; a live window's times are its own);
    /// nil when there is none.
    static func segmentIndex(in playlist: HLSMediaPlaylist, sequence: Int, start: Double?) -> Int? {
        if let index = playlist.segments.firstIndex(where: { $0.sequenceNumber == sequence }) { return index }
        guard let start else { return nil }
        var elapsed = 0.0
        for (index, segment) in playlist.segments.enumerated() {
            if start < elapsed + segment.duration - 0.001 { return index }
            elapsed += segment.duration
        }
        return nil
    }

    /// Segment `index` could not be opened: the same segment from another variant. True when
    /// it is open; the variant playing goes on after it.
    private func openFromAlternate(_ index: Int, failure: MediaError) -> Bool {
        guard let master, !http.isCancelled,
              let other = HLSBitrate.alternate(to: variantIndex, among: master.variants, renditions: master.renditions) else { return false }
        do {
            // A live playlist moves on: fetched again each time.
            if alternatePlaylists[other] == nil || playlist.isLive {
                let (otherURL, media) = try loadOtherVariant(other, of: master)
                alternatePlaylists[other] = (otherURL, media)
            }
            guard let (otherURL, media) = alternatePlaylists[other] else { return false }
            let start = playlist.isLive ? nil : index > 0 ? nextSegmentStart(after: index - 1).start : 0
            guard let found = Self.segmentIndex(in: media, sequence: playlist.segments[index].sequenceNumber, start: start) else { return false }
            try open(media.segments[found], base: otherURL)
            Log.network.warning("\(failure.input): \(failure.reason); fetched from variant \(other + 1) instead")
            options.monitor?.note(.retry(url: failure.input, reason: "\(failure.reason); from variant \(other + 1)", delay: 0))
            return true
        } catch {
            Log.network.warning("\(error.input): \(error.reason)")
            return false
        }
    }

    func noteVariant() {
        guard let variant = master?.variants[variantIndex] else { return }
        options.monitor?.note(.variant(bandwidth: variant.bandwidth, width: variant.resolution?.width, height: variant.resolution?.height))
    }

    /// The variant playing, as the cache map shows it: its segments' URLs and times (none for a
    /// live playlist, whose segments are not kept).
    func publishCacheLayout() {
        guard let cacheMap else { return }
        guard !playlist.isLive else { return cacheMap.setLayout(nil) }
        var start = 0.0
        cacheMap.setLayout(.segments(playlist.segments.map { segment in
            defer { start += segment.duration }
            return SegmentSpan(url: HLSURL.resolve(segment.uri, against: playlistURL),
                               byteRange: segment.byteRange.map { ByteRange(start: $0.offset, end: $0.offset + $0.length) },
                               start: start, duration: segment.duration)
        }))
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

    /// Opens `segment` of the playlist at `base` (the one playing when nil), its key first when
    /// it has one, to read from its start. An fMP4 segment under another initialization section
    /// than the section's ends the section (after a variant change, say): that one comes first.
    func open(_ segment: HLSSegment, base: String? = nil) throws(MediaError) {
        let base = base ?? playlistURL
        openSegment = (segment, base)
        if let map = segment.map {
            let mapURL = HLSURL.resolve(map.uri, against: base)
            let name = map.byteRange.map { "\(mapURL) bytes \($0.offset)+\($0.length)" } ?? mapURL
            if name != sectionInit || segment.timeOffset != sectionTimeOffset {
                sectionTimeOffset = segment.timeOffset
                initSection = try initializationSection(at: mapURL, range: map.byteRange, name: name,
                                                        mirrors: map.mirrors.map { HLSURL.resolve($0, against: base) })
                initSectionIndex = 0
                sectionInit = name
                isAtSectionEnd = sectionHasBytes
            }
        }
        wholeSegment.removeAll(keepingCapacity: true)
        wholeSegmentRead = 0
        keyFramePrefixLength = 0
        isWholeSegmentFetched = false
        decryptor = nil
        if let key = segment.key {
            let keyURL = HLSURL.resolve(key.uri, against: base)
            // A live reload can bring a method the opening did not see.
            guard key.method == .aes128 else { throw MediaError(input: keyURL, reason: "\(key.method.rawValue) segments are not read by this client") }
            let bytes = try self.key(at: keyURL)
            decryptor = SegmentDecryptor(key: bytes, iv: key.iv(forSequence: segment.sequenceNumber))
            guard decryptor != nil else { throw MediaError(input: keyURL, reason: "cannot start AES-128 decryption") }
        }
        plaintext.removeAll(keepingCapacity: true)
        plaintextIndex = 0
        isDecryptionFinished = false
        let target = HLSURL.resolve(segment.uri, against: base)
        segmentBase = segment.byteRange?.offset ?? 0
        // After the first, a segment is the stream going on: a refused connection is waited out.
        // A live stream's segments are not kept: they are seen once. Only this fetch of those
        // above is the segment's download (`segmentNetworkSeconds`).
        let opening = MonotonicClock.now()
        defer { segmentNetworkSeconds += MonotonicClock.now() - opening }
        do {
            try http.open(url: target, at: segmentBase, length: segment.byteRange?.length, isContinuation: highestPosition > 0,
                          caching: playlist.isLive ? .bypass : .store)
        } catch {
            try openMirror(of: segment, base: base, failure: error)
        }
    }

    /// The segment's primary URL failed after the I/O layer's retries: the same bytes from its
    /// other copies (a DASH manifest's further BaseURLs), in order.
    private func openMirror(of segment: HLSSegment, base: String, failure: MediaError) throws(MediaError) {
        var failure = failure
        for mirror in segment.mirrors where !http.isCancelled {
            let target = HLSURL.resolve(mirror, against: base)
            do {
                try http.open(url: target, at: segmentBase, length: segment.byteRange?.length, isContinuation: true,
                              caching: playlist.isLive ? .bypass : .store)
                Log.network.warning("\(failure.input): \(failure.reason); fetched from \(target) instead")
                options.monitor?.note(.retry(url: failure.input, reason: "\(failure.reason); from \(target)", delay: 0))
                return
            } catch {
                failure = error
            }
        }
        throw failure
    }

    /// The initialization section at `mapURL` (within `range`), fetched the first time it is needed.
    /// Failing that, from its `mirrors` in order.
    private func initializationSection(at mapURL: String, range: HLSByteRange?, name: String, mirrors: [String]) throws(MediaError) -> [UInt8] {
        if let known = initSections[name] { return known }
        var bytes: [UInt8] = []
        var failure: MediaError?
        for target in [mapURL] + mirrors where !http.isCancelled {
            do {
                try http.open(url: target, at: range?.offset ?? 0, length: range?.length, isContinuation: highestPosition > 0, caching: .store)
                bytes = try http.readAll(limit: Self.playlistLimit)
                if let failure { Log.network.warning("\(failure.input): \(failure.reason); fetched from \(target) instead") }
                failure = nil
                break
            } catch {
                if failure == nil { failure = error }
            }
        }
        if let failure { throw failure }
        guard !bytes.isEmpty else { throw MediaError(input: mapURL, reason: "an empty initialization section") }
        initSections[name] = bytes
        return bytes
    }

    /// The 16-byte key at `keyURL`, fetched the first time it is needed and held in memory
    /// alone: never in the disk cache, where it would open every cached segment to whoever
    /// reads the cache. Only a key the user kept on purpose (KeptKeys) is read from disk.
    private func key(at keyURL: String) throws(MediaError) -> [UInt8] {
        if let known = keys[keyURL] { return known }
        if let failed = failedKeys[keyURL] { throw failed }
        let kept = store.map { KeptKeys(directory: $0.directory) }
        if let bytes = kept?.key(for: keyURL) {
            keys[keyURL] = bytes
            return bytes
        }
        let bytes: [UInt8]
        do {
            try http.open(url: keyURL, at: 0, length: nil, isContinuation: highestPosition > 0, caching: .bypass)
            bytes = try http.readAll(limit: 64)
        } catch {
            if http.isCancelled { throw error }
            let failure = MediaError(input: keyURL, reason: "the AES-128 key cannot be fetched (\(error.reason)); keys are never kept in the disk cache")
            failedKeys[keyURL] = failure
            throw failure
        }
        guard bytes.count == SegmentDecryptor.blockSize else {
            let failure = MediaError(input: keyURL, reason: "an AES-128 key of \(bytes.count) bytes, not 16")
            failedKeys[keyURL] = failure
            throw failure
        }
        if options.keepsKeys, let kept { try kept.keep(bytes, for: keyURL) }
        // An older hplayer kept keys in the cache: one found there goes.
        if let store, store.entry(for: keyURL) != nil { store.remove(keyURL) }
        keys[keyURL] = bytes
        return bytes
    }

    /// The current segment's next bytes, decrypted when it is encrypted; 0 at its end.
    func readSegment(into buffer: UnsafeMutableRawBufferPointer) throws(MediaError) -> Int {
        let reading = MonotonicClock.now()
        defer { segmentNetworkSeconds += MonotonicClock.now() - reading }
        guard let decryptor else { return try http.read(into: buffer) }
        while plaintextIndex >= plaintext.count {
            plaintext.removeAll(keepingCapacity: true)
            plaintextIndex = 0
            guard !isDecryptionFinished else { return 0 }
            let count = try http.read(into: scratch)
            if count > 0 {
                decryptor.decrypt(UnsafeRawBufferPointer(rebasing: scratch[..<count]), into: &plaintext)
                continue
            }
            isDecryptionFinished = true
            do {
                try decryptor.finish(into: &plaintext)
            } catch {
                throw MediaError(input: http.url, reason: error.description)
            }
        }
        let count = min(buffer.count, plaintext.count - plaintextIndex)
        plaintext.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + plaintextIndex, byteCount: count) }
        plaintextIndex += count
        return count
    }

    /// Live: reloads the playlist until a segment after `sequence` is listed; its index, or nil
    /// when the playlist has ended instead.
    private func awaitSegment(after sequence: Int) throws(MediaError) -> Int? {
        var unchanged = false
        while true {
            if let index = playlist.segments.firstIndex(where: { $0.sequenceNumber > sequence }) {
                if playlist.segments[index].sequenceNumber > sequence + 1 {
                    Log.network.warning("\(playlistURL): fell out of the live window; jumping to segment \(playlist.segments[index].sequenceNumber)")
                }
                return index
            }
            guard playlist.isLive else { return nil }
            // Reloaded every target duration, or half of it when it did not change.
            try wait(max(0.5, unchanged ? playlist.targetDuration / 2 : playlist.targetDuration))
            let before = playlist.segments.last?.sequenceNumber
            var reloaded: HLSPlaylist
            do {
                reloaded = try front.read(playlistURL, isReload: true, through: self)
                failedReloads = 0
            } catch {
                if http.isCancelled { throw error }
                failedReloads += 1
                guard failedReloads <= Self.reloadFailureLimit else { throw error }
                Log.network.warning("\(playlistURL): reloading failed: \(error.reason); trying again")
                continue
            }
            // A refused URL is not a reload's passing failure: it is not ridden out.
            reloaded = try allowedReferences(of: reloaded, from: playlistURL)
            guard case let .media(media) = reloaded else {
                throw MediaError(input: playlistURL, reason: "the live playlist became a master playlist")
            }
            playlist = media
            unchanged = playlist.segments.last?.sequenceNumber == before
        }
    }

    private func wait(_ seconds: Double) throws(MediaError) {
        let end = MonotonicClock.now() + seconds
        while MonotonicClock.now() < end {
            if http.isCancelled { throw MediaError(input: url, reason: "cancelled") }
            MonotonicClock.sleep(until: min(end, MonotonicClock.now() + 0.02))
        }
    }

    /// A manifest's bytes. One the cache holds is taken from it when `isUsableFromCache` says so
    /// (not a live one, which changes as it is played: that is fetched); a reload
    /// (`isLive`) is never kept. The fetch is a throughput sample for the first variant.
    func fetchDocument(_ target: String, isLive: Bool, isUsableFromCache: ([UInt8]) -> Bool) throws(MediaError) -> [UInt8] {
        if !isLive, let cached = http.cachedContent(of: target, limit: Self.playlistLimit) {
            if isUsableFromCache(cached) { return cached }
            Log.cache.debug("\(target): a live manifest: fetched, not taken from the cache")
        }
        let started = MonotonicClock.now()
        try http.open(url: target, at: 0, length: nil, isContinuation: false, caching: isLive ? .bypass : .store)
        let bytes = try http.readAll(limit: Self.playlistLimit)
        let finished = MonotonicClock.now()
        playlistDownload = ThroughputSample(bytes: Double(bytes.count), seconds: finished - started, finishedAt: finished)
        return bytes
    }

    /// `length` bytes of `target` from `offset` (an index, an initialization section), through the
    /// disk cache.
    func fetchRange(_ target: String, offset: Int64, length: Int64?) throws(MediaError) -> [UInt8] {
        try http.open(url: target, at: offset, length: length, isContinuation: highestPosition > 0, caching: .store)
        return try http.readAll(limit: Self.playlistLimit)
    }

    /// A playlist, an initialization section or a key larger than this is refused.
    static let playlistLimit = DocumentLimit.bytes

    /// The manifest at `source`, read by the front end, with what it may not name taken out.
    func manifest(at source: String) throws(MediaError) -> HLSPlaylist {
        try allowedReferences(of: try front.read(source, isReload: false, through: self), from: source)
    }

    /// `playlist` less the URLs OriginPolicy refuses, each told in one line (once, not at every
    /// live reload). When nothing playable is left, the stream fails at once: a refused URL is
    /// never tried, so not tried again.
    func allowedReferences(of playlist: HLSPlaylist, from source: String) throws(MediaError) -> HLSPlaylist {
        let (allowed, refused) = HLSReferences.allowed(playlist, base: source)
        guard !refused.isEmpty else { return allowed }
        var untold = 0
        for reference in refused where toldRefusals.insert(reference.url).inserted {
            guard toldRefusals.count <= Self.refusalsTold else {
                untold += 1
                continue
            }
            Log.network.error("\(source): refused \(reference.url): \(reference.reason)")
        }
        if untold > 0 { Log.network.error("\(source): refused \(untold) more URLs, not each told") }
        switch allowed {
        case let .master(master) where master.variants.isEmpty:
            throw MediaError(input: source, reason: "every variant's URL was refused (\(refused[0].reason))")
        case let .media(media) where media.segments.isEmpty:
            throw MediaError(input: source, reason: "every segment's URL was refused (\(refused[0].reason))")
        default:
            return allowed
        }
    }
}
