/// The segment stream's variants: loading another's timeline, what this client can read, the
/// same segment in another variant (a failover, a switch), and what the cache map and monitor
/// are told of the variant playing.
extension SegmentStream {
    /// The URL and media playlist of variant `index`.
    func loadVariant(_ index: Int, of master: HLSMasterPlaylist) throws(MediaError) -> (String, HLSMediaPlaylist) {
        let variantURL = HLSURL.resolve(master.variants[index].uri, against: url)
        guard case let .media(media) = try manifest(at: variantURL) else {
            throw MediaError(input: variantURL, reason: "a variant's playlist is a master playlist")
        }
        return (variantURL, media)
    }

    /// What in `playlist` this client cannot read yet; nil when it can read it all.
    static func unsupportedFeature(of playlist: HLSMediaPlaylist) -> String? {
        if playlist.segments.contains(where: { $0.key?.method == .sampleAES }) { return "SAMPLE-AES segments" }
        // AES-128 over whole fMP4 segments; SAMPLE-AES-CTR's samples the demuxer decrypts.
        if playlist.segments.contains(where: { $0.map != nil && $0.key?.method == .aes128 }) { return "encrypted fMP4 segments" }
        if playlist.segments.contains(where: { $0.map == nil && $0.key?.method == .sampleAESCTR }) {
            return "SAMPLE-AES-CTR segments without an initialization section (EXT-X-MAP)"
        }
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
    func checkLeftToLibavformat() throws(MediaError) {
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
    func openFromAlternate(_ index: Int, failure: MediaError) -> Bool {
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
}
