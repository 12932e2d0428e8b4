/// The HLS client's adaptation, while the bitrate policy runs (`--hls-bitrate=auto`): each
/// segment's variant, each segment fetched whole so that one too slow to arrive in time can be
/// given up, the key frame a switch must start on, the audio rendition following the variant's
/// AUDIO group, and the throughput estimate kept for the server's next session.
extension SegmentStream {
    /// `auto`, at the end of segment `index`: its download taught to the bitrate policy, which
    /// picks the next segment's variant. Returns that segment's index in the new variant's
    /// playlist; nil to stay (the policy's choice, or the other playlist failed to load). No
    /// decision once the last segment of a VOD playlist has been read.
    func adaptVariant(after index: Int) -> Int? {
        guard var run = abr, let master else { return nil }
        defer { abr = run }
        run.noteDownload(bytes: segmentOffset - Int64(keyFramePrefixLength), seconds: segmentNetworkSeconds)
        saveEstimate(run.estimate)
        let next = index + 1
        guard playlist.isLive || next < playlist.segments.count else { return nil }
        let level = bufferLevel?() ?? BufferLevel(seconds: 0, maximum: 30, isStarved: false)
        let duration = next < playlist.segments.count ? playlist.segments[next].duration : playlist.targetDuration
        let target = run.nextVariant(playing: variantIndex, level: level, segmentDuration: duration,
                                     segmentsLeft: playlist.isLive ? nil : playlist.segments.count - next)
        guard target != variantIndex else { return nil }
        let start = nextSegmentStart(after: index)
        do {
            let (targetURL, media) = try loadOtherVariant(target, of: master)
            guard let found = Self.segmentIndex(in: media, sequence: start.sequence, start: playlist.isLive ? nil : start.start) else { return nil }
            let summary = variants?[target].summary ?? ""
            Log.network.info("\(url): \(run.policy.name) picks variant \(target + 1) (\(summary)) from here, with \(DecimalText.fixed(level.seconds, places: 1)) s buffered")
            beforeSwitch = (playlistURL, playlist, variantIndex)
            (playlistURL, playlist, variantIndex) = (targetURL, media, target)
            run.didSwitch()
            noteVariant()
            publishCacheLayout()
            followAudio(to: master.variants[target], of: master)
            return found
        } catch {
            Log.network.warning("\(error.input): \(error.reason); staying on variant \(variantIndex + 1)")
            return nil
        }
    }

    /// The stream moved to `variant`: where its AUDIO group is another, its rendition of the
    /// language playing becomes the one the rendition's stream follows. The same URI in both
    /// groups is the same rendition: it plays on, not restarted.
    private func followAudio(to variant: HLSVariant, of master: HLSMasterPlaylist) {
        guard let current = audioRendition, variant.audioGroup != current.groupID,
              let next = master.audioRendition(of: variant, following: current), let uri = next.uri else { return }
        audioRendition = next
        let nextURL = HLSURL.resolve(uri, against: url)
        guard nextURL != audioRenditionURL else { return }
        audioRenditionURL = nextURL
        audioRenditionChoice.wanted = nextURL
        Log.network.info("\(url): the sound moves to the audio rendition \"\(next.name)\"\(next.language.map { " (\($0))" } ?? "") of group \(next.groupID)")
    }

    /// An audio rendition's stream, at the end of segment `index`: when the variant playing now
    /// calls for another rendition, the rest comes from that one, from the segment of the same
    /// sequence number (else the same start). Returns its index there; nil to go on as it is.
    func followRendition(after index: Int) -> Int? {
        guard let wanted = followedRendition?.wanted, wanted != playlistURL, wanted != refusedRendition else { return nil }
        let next = index + 1
        guard playlist.isLive || next < playlist.segments.count else { return nil }
        let start = nextSegmentStart(after: index)
        do throws(MediaError) {
            guard case let .media(media) = try manifest(at: wanted) else {
                throw MediaError(input: wanted, reason: "a master playlist where an audio rendition's was expected")
            }
            if let feature = Self.unsupportedFeature(of: media) { throw MediaError(input: wanted, reason: "\(feature): not read by this client") }
            if !media.segments.isEmpty, Self.isFragmented(media) != isSectioned {
                throw MediaError(input: wanted, reason: "its segments are not of the format playing (fMP4 or MPEG-TS)")
            }
            guard let found = Self.segmentIndex(in: media, sequence: start.sequence, start: playlist.isLive ? nil : start.start) else {
                throw MediaError(input: wanted, reason: "no segment at \(DecimalText.fixed(start.start, places: 1)) s")
            }
            Log.network.info("\(wanted): the sound goes on from this rendition at \(DecimalText.fixed(start.start, places: 1)) s")
            (playlistURL, playlist) = (wanted, media)
            return found
        } catch {
            Log.network.warning("\(error.input): \(error.reason); the sound stays on \(playlistURL)")
            refusedRendition = wanted
            return nil
        }
    }

    /// Segments are fetched whole while the bitrate policy runs (a segment can be given up).
    var fetchesWholeSegments: Bool { abr != nil }

    /// Fetches the current segment whole. Checked every `abandonmentCheckInterval` while it
    /// downloads: a download too slow to arrive before the buffer runs dry is given up for the
    /// same segment of the lower variant the policy names. Before playback starts too (unlike
    /// the simulator's): playback waits on this segment then, and the lower one comes sooner.
    func fetchWholeSegment() throws(MediaError) {
        // The buffer as the read thread last saw it (it is this thread, busy here), drained by
        // the time since.
        let level = bufferLevel?() ?? BufferLevel(seconds: .infinity, maximum: .infinity, isStarved: false)
        let began = MonotonicClock.now()
        var lastCheck = began
        var mayGiveUp = true
        while true {
            let count = try readSegment(into: chunk)
            if count == 0 { break }
            wholeSegment.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[..<count]))
            guard wholeSegment.count <= Self.wholeSegmentLimit else {
                throw MediaError(input: http.url, reason: "a segment larger than \(Self.wholeSegmentLimit >> 20) MiB")
            }
            let now = MonotonicClock.now()
            guard mayGiveUp, now - lastCheck >= Self.abandonmentCheckInterval else { continue }
            lastCheck = now
            guard let lower = lowerVariant(buffer: max(0, level.seconds - (now - began))) else { continue }
            // One try per segment: a variant whose playlist cannot be had is not asked for again.
            mayGiveUp = false
            try giveUpSegment(for: lower)
        }
        isWholeSegmentFetched = true
    }

    /// The first segment after a switch, fetched whole: its picture must start with a key frame
    /// (SegmentKeyFrame, FragmentKeyFrame for fMP4). Where an MPEG-TS one does not (its
    /// variant's key frames are not aligned with the others'), its variant's segment before it
    /// is fetched and its video from its last key frame goes first: those pictures are decoded
    /// but not shown (SwitchOverlap). Where that cannot be done, the segment comes from the
    /// variant before instead, and the policy no longer picks this one.
    func checkSwitchedSegmentStart() throws(MediaError) {
        guard let before = beforeSwitch, let index = segmentIndex else { return }
        beforeSwitch = nil
        let startsWithKeyFrame = isSectioned ? FragmentKeyFrame.startsWithKeyFrame(initSection: initSection, fragment: wholeSegment)
            : SegmentKeyFrame.startsWithKeyFrame(wholeSegment)
        guard startsWithKeyFrame == false, !prependVideoFromKeyFrame(before: index) else {
            noteSwitchPositions()
            return
        }
        let sequence = playlist.segments[index].sequenceNumber
        let start = index > 0 ? nextSegmentStart(after: index - 1).start : 0
        guard let found = Self.segmentIndex(in: before.playlist, sequence: sequence, start: playlist.isLive ? nil : start) else { return }
        Log.network.warning("\(HLSURL.resolve(playlist.segments[index].uri, against: playlistURL)): does not start with a key frame; segment \(sequence) comes from variant \(before.variant + 1) again, and variant \(variantIndex + 1) is not switched to from now on")
        abr?.exclude(variantIndex)
        (playlistURL, playlist, variantIndex) = before
        noteVariant()
        publishCacheLayout()
        if let master { followAudio(to: master.variants[variantIndex], of: master) }
        segmentIndex = found
        sequenceNumber = playlist.segments[found].sequenceNumber
        segmentNetworkSeconds = 0
        try open(playlist.segments[found])
    }

    /// Segment `index`, switched to, does not start with a key frame: the video of the segment
    /// before it in its variant, from that one's last key frame, goes before it. False where
    /// that cannot be done: fMP4, the first segment, after a discontinuity (the timestamps are
    /// not the variant before's), an encrypted segment before, no key frame in it, or its fetch
    /// failed.
    private func prependVideoFromKeyFrame(before index: Int) -> Bool {
        guard !isSectioned, index > 0, !playlist.segments[index].isDiscontinuity, playlist.segments[index - 1].key == nil else { return false }
        let previous = playlist.segments[index - 1]
        let previousURL = HLSURL.resolve(previous.uri, against: playlistURL)
        let video: [UInt8]
        do throws(MediaError) {
            try http.open(url: previousURL, at: previous.byteRange?.offset ?? 0, length: previous.byteRange?.length,
                          isContinuation: true, caching: playlist.isLive ? .bypass : .store)
            guard let found = SegmentKeyFrame.videoFromLastKeyFrame(try http.readAll(limit: Self.wholeSegmentLimit, within: .infinity)) else {
                Log.network.warning("\(previousURL): no key frame to decode the next segment's first pictures from")
                return false
            }
            video = found
        } catch {
            Log.network.warning("\(error.input): \(error.reason)")
            return false
        }
        Log.network.info("\(HLSURL.resolve(playlist.segments[index].uri, against: playlistURL)): does not start with a key frame; its first pictures are decoded from the last key frame of the segment before (\(video.count) bytes of its video), not shown again")
        wholeSegment.insert(contentsOf: video, at: 0)
        keyFramePrefixLength = video.count
        return true
    }

    /// The current segment's bytes are a switch's: its pictures that the variant before showed
    /// are not shown again. MPEG-TS only (fMP4 is demuxed a section at a time); not after a
    /// discontinuity, where timestamps start anew.
    private func noteSwitchPositions() {
        guard !isSectioned, let index = segmentIndex, !playlist.segments[index].isDiscontinuity else { return }
        switchPositions.append(segmentStart..<(segmentStart + Int64(wholeSegment.count)))
        if switchPositions.count > Self.switchPositionsKept { switchPositions.removeFirst() }
    }

    /// The policy's lower variant for the segment downloading, or nil to go on with it.
    private func lowerVariant(buffer: Double) -> Int? {
        guard let abr, let index = segmentIndex, openSegment?.base == playlistURL else { return nil }
        let segment = playlist.segments[index]
        let declared = Double(master?.variants[variantIndex].bandwidth ?? 0) / 8 * segment.duration
        let expected = segment.byteRange.map { Double($0.length) } ?? http.info.contentLength.map(Double.init) ?? declared
        return abr.abandonment(playing: variantIndex, elapsed: segmentNetworkSeconds, loaded: wholeSegment.count,
                               expectedBytes: expected, buffer: buffer)
    }

    /// Gives the segment downloading up for the same segment of variant `lower`, none of it
    /// handed out; what came of it is a throughput sample. Stays on it when `lower`'s playlist
    /// cannot be had.
    private func giveUpSegment(for lower: Int) throws(MediaError) {
        guard var run = abr, let master, let index = segmentIndex else { return }
        defer { abr = run }
        run.noteDownload(bytes: Int64(wholeSegment.count), seconds: segmentNetworkSeconds)
        let sequence = playlist.segments[index].sequenceNumber
        let start = index > 0 ? nextSegmentStart(after: index - 1).start : 0
        let found: Int
        do {
            let (lowerURL, media) = try loadOtherVariant(lower, of: master)
            guard let lowerIndex = Self.segmentIndex(in: media, sequence: sequence, start: playlist.isLive ? nil : start) else { return }
            found = lowerIndex
            // The variant the segment before came from, which the lower one may be.
            let played = beforeSwitch ?? (playlistURL, playlist, variantIndex)
            beforeSwitch = lower == played.variant ? nil : played
            (playlistURL, playlist, variantIndex) = (lowerURL, media, lower)
        } catch {
            Log.network.warning("\(error.input): \(error.reason); staying on variant \(variantIndex + 1)")
            return
        }
        Log.network.info("\(url): segment \(sequence) too slow to arrive in time (\(wholeSegment.count) bytes in \(DecimalText.fixed(segmentNetworkSeconds, places: 1)) s): fetched from variant \(lower + 1) (\(variants?[lower].summary ?? "")) instead")
        run.didSwitch()
        noteVariant()
        publishCacheLayout()
        followAudio(to: master.variants[lower], of: master)
        segmentIndex = found
        sequenceNumber = playlist.segments[found].sequenceNumber
        segmentNetworkSeconds = 0
        try open(playlist.segments[found])
    }

    /// The next bytes of the segment fetched whole; 0 at its end.
    func takeFromWholeSegment(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(buffer.count, wholeSegment.count - wholeSegmentRead)
        guard count > 0 else { return 0 }
        wholeSegment.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + wholeSegmentRead, byteCount: count) }
        wholeSegmentRead += count
        return count
    }

    /// A segment fetched whole larger than this is refused.
    static let wholeSegmentLimit = 256 << 20
    /// Seconds between two looks at a download's progress, as a player's progress events come.
    static let abandonmentCheckInterval = 0.25

    /// Keeps the throughput estimate for the server's next session, when it changed enough.
    private func saveEstimate(_ estimate: Double?) {
        guard let estimate, let host = estimateHost, let store,
              StartupEstimate.shouldSave(estimate, lastSaved: savedEstimate) else { return }
        store.saveThroughput(estimate, for: host)
        savedEstimate = estimate
    }
}
