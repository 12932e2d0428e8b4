/// The DASH front end of the segment stream: an MPD read into the stream's model.
///
/// - The presentation: a variant per Representation of the first video AdaptationSet (its
///   bandwidth with the sound's, as an HLS variant's BANDWIDTH counts), and a rendition per
///   audio AdaptationSet, its highest Representation, played alongside. Without video, the
///   audio Representations are the variants.
/// - A Representation's timeline: its segments in every Period (the Representation of the same
///   id in a later Period, else of the same rank by bandwidth), each Period's initialization
///   section an EXT-X-MAP, each later Period's first segment a discontinuity. Numbers stay those
///   of the MPD, so that a switch finds the same segment of another Representation.
/// A variant's or rendition's URL is the MPD's with a fragment naming it (`#video=0/2`: the
/// first video AdaptationSet's third Representation), which only this front end reads.
final class DASHManifests: ManifestFrontEnd {
    /// The MPD last read, and the URL it came from: a Representation's timeline is read from it
    /// without fetching it again, but for a live reload.
    private var document: (url: String, mpd: MPD)?
    /// SegmentBase indexes read, by Period and Representation: each sidx is fetched once.
    private var indexes: [String: [DASHSegment]] = [:]
    /// When the MPD was last fetched (monotonic), for `minimumUpdatePeriod`.
    private var fetchedAt = 0.0
    /// A dynamic MPD: the server's clock less this machine's, seconds, from its UTCTiming (0
    /// without one); read once.
    private var clockOffset: Double?
    /// `--alang`: the audio AdaptationSet played is the first of these languages it has.
    private let audioLanguages: [String]
    /// The user gave ClearKey keys or a license server: Common Encryption is tried whatever DRM
    /// systems the manifest names.
    private let hasClearKeys: Bool

    init(audioLanguages: [String], hasClearKeys: Bool) {
        self.audioLanguages = audioLanguages
        self.hasClearKeys = hasClearKeys
    }

    /// libavformat's DASH demuxer is never used: it fetches every Representation.
    var leavesUnreadToLibavformat: Bool { false }
    var publishesSegmentsByClock: Bool { true }

    func read(_ url: String, isReload: Bool, through stream: SegmentStream) throws(MediaError) -> HLSPlaylist {
        let (documentURL, selection) = DASHSelection.split(url)
        if document?.url != documentURL || (isReload && isUpdateDue) {
            let bytes = try stream.fetchDocument(documentURL, isLive: isReload) { cached in
                (try? MPDParser.parse(cached, url: documentURL))?.isDynamic == false
            }
            do {
                document = (documentURL, try MPDParser.parse(bytes, url: documentURL))
                fetchedAt = MonotonicClock.now()
            } catch {
                throw MediaError(input: documentURL, reason: error.reason)
            }
            if let mpd = document?.mpd, mpd.isDynamic, clockOffset == nil { clockOffset = serverClockOffset(mpd, url: documentURL, stream: stream) }
        }
        guard let (_, mpd) = document else { throw MediaError(input: documentURL, reason: "no manifest") }
        do throws(MPDError) {
            guard let selection else { return .master(try presentation(of: mpd, url: documentURL)) }
            return .media(try timeline(of: selection, in: mpd, url: documentURL, stream: stream))
        } catch {
            throw MediaError(input: url, reason: error.reason)
        }
    }

    /// A live reload fetches the MPD again once its `minimumUpdatePeriod` has passed (always
    /// when it gives none); in between, the segments are worked out anew from the one held.
    private var isUpdateDue: Bool {
        guard let period = document?.mpd.minimumUpdatePeriod, period > 0 else { return true }
        return MonotonicClock.now() - fetchedAt >= period
    }

    /// The server's clock less this machine's, from the first UTCTiming this client reads
    /// (`http-xsdate`, `http-iso`, `direct`); 0, with a warning, when none can be read.
    private func serverClockOffset(_ mpd: MPD, url: String, stream: SegmentStream) -> Double {
        for timing in mpd.utcTimings {
            let scheme = timing.scheme.lowercased()
            do throws(MediaError) {
                if scheme.hasPrefix("urn:mpeg:dash:utc:direct:") {
                    guard let time = ISOTime.dateTime(timing.value) else { throw MediaError(input: url, reason: "UTCTiming direct \"\(timing.value)\" is not a date and time") }
                    return time - WallClock.now()
                }
                let isHead = scheme.hasPrefix("urn:mpeg:dash:utc:http-head:")
                guard isHead || scheme.hasPrefix("urn:mpeg:dash:utc:http-xsdate:") || scheme.hasPrefix("urn:mpeg:dash:utc:http-iso:") else { continue }
                let timeURL = HLSURL.resolve(timing.value, against: url)
                if let refusal = OriginPolicy.refusal(of: timeURL, namedBy: url) { throw MediaError(input: timeURL, reason: refusal) }
                let asked = WallClock.now()
                let text: String
                if isHead {
                    // The Date field of a HEAD's answer: whole seconds alone.
                    text = try Self.dateField(of: timeURL, stream: stream)
                } else {
                    text = String(decoding: try stream.fetchDocument(timeURL, isLive: true, isThroughputSample: false) { _ in false }, as: UTF8.self)
                }
                let answered = WallClock.now()
                // A Date names its whole second: the middle of it is half a second off at most.
                guard let time = isHead ? ISOTime.httpDate(text).map({ $0 + 0.5 }) : ISOTime.dateTime(text) else {
                    throw MediaError(input: timeURL, reason: "\"\(text.prefix(40).filter { !$0.isNewline })\" is not a date and time")
                }
                // The server read its clock about halfway through the exchange.
                let offset = time - (asked + answered) / 2
                Log.network.info("\(url): the server's clock is \(DecimalText.fixed(offset, places: 3)) s from this machine's (\(timeURL))")
                return offset
            } catch {
                Log.network.warning("\(error.input): \(error.reason); trying the next UTCTiming")
            }
        }
        if !mpd.utcTimings.isEmpty { Log.network.warning("\(url): no UTCTiming could be read; this machine's clock is taken as the server's") }
        return 0
    }

    /// The Date field of `url`'s answer to a HEAD (UTCTiming `http-head`).
    private static func dateField(of url: String, stream: SegmentStream) throws(MediaError) -> String {
        let transfer = try CurlTransfer(url: url, options: stream.options)
        transfer.setHeadOnly()
        transfer.start(at: 0)
        let head = try transfer.exchange(limit: 0) { stream.http.isCancelled }.head
        guard let date = head.fields["date"] else { throw MediaError(input: url, reason: "no Date in the answer") }
        return date
    }

    /// The MPD as read, for `hplayer probe`: every Period's sets and Representations, those of
    /// the first Period that `playing` (variant and rendition URLs) name marked.
    func periods(playing: [String]) -> [ManifestPeriod]? {
        guard let mpd = document?.mpd else { return nil }
        let selections = playing.compactMap { DASHSelection.split($0).selection }
        return mpd.periods.enumerated().map { periodIndex, period in
            var ordinals: [MPDAdaptationSet.ContentType: Int] = [:]
            let sets = period.adaptationSets.map { set in
                let ordinal = set.representations.isEmpty ? -1 : ordinals[set.contentType, default: 0]
                if !set.representations.isEmpty { ordinals[set.contentType] = ordinal + 1 }
                var names: [String] = []
                for protection in set.representations.flatMap(\.protections) where !names.contains(protection.name) { names.append(protection.name) }
                return ManifestAdaptationSet(
                    contentType: set.contentType.rawValue, language: set.language, roles: set.roles, protections: names,
                    representations: set.representations.enumerated().map { index, representation in
                        ManifestRepresentation(id: representation.id, bandwidth: representation.bandwidth, width: representation.width,
                                               height: representation.height, frameRate: representation.frameRate, codecs: representation.codecs,
                                               isPlaying: periodIndex == 0 && selections.contains(DASHSelection(kind: set.contentType, set: ordinal, representation: index)))
                    })
            }
            return ManifestPeriod(id: period.id, start: period.start, duration: period.duration, adaptationSets: sets)
        }
    }

    // MARK: The presentation

    private func presentation(of mpd: MPD, url: String) throws(MPDError) -> HLSMasterPlaylist {
        guard let period = mpd.periods.first else { throw MPDError("an MPD with no Period") }
        let videoSets = period.adaptationSets.filter { $0.contentType == .video && !$0.representations.isEmpty }
        let audioSets = period.adaptationSets.filter { $0.contentType == .audio && !$0.representations.isEmpty }
        for set in videoSets.prefix(1) + audioSets { try Self.checkProtection(set, hasClearKeys: hasClearKeys) }
        var master = HLSMasterPlaylist()
        let defaultAudio = TrackLanguage.choose(among: audioSets.map(\.language), preferences: audioLanguages)
            ?? audioSets.firstIndex { $0.roles.contains("main") } ?? 0
        for (ordinal, set) in audioSets.enumerated() where !videoSets.isEmpty {
            let chosen = Self.highest(set.representations)
            master.renditions.append(HLSRendition(
                kind: .audio, groupID: "audio", name: set.language ?? set.id.map { "AdaptationSet \($0)" } ?? "audio \(ordinal + 1)",
                uri: DASHSelection(kind: .audio, set: ordinal, representation: chosen).url(of: url), language: set.language,
                isDefault: ordinal == defaultAudio, autoselect: true))
        }
        let sound = audioSets.isEmpty ? nil : audioSets[defaultAudio].representations[Self.highest(audioSets[defaultAudio].representations)]
        if let video = videoSets.first {
            for (index, representation) in video.representations.enumerated() {
                master.variants.append(Self.variant(representation, sound: sound, audioGroup: sound == nil ? nil : "audio",
                                                    url: DASHSelection(kind: .video, set: 0, representation: index).url(of: url)))
            }
        } else if let audio = audioSets.first {
            for (index, representation) in audio.representations.enumerated() {
                master.variants.append(Self.variant(representation, sound: nil, audioGroup: nil,
                                                    url: DASHSelection(kind: .audio, set: 0, representation: index).url(of: url)))
            }
        }
        guard !master.variants.isEmpty else { throw MPDError("no video or audio Representation in the first Period") }
        let textSets = period.adaptationSets.filter { $0.contentType == .text && !$0.representations.isEmpty }
        for (ordinal, set) in textSets.enumerated() {
            let chosen = Self.highest(set.representations)
            master.renditions.append(HLSRendition(
                kind: .subtitles, groupID: "text", name: Self.textName(set, ordinal: ordinal),
                uri: DASHSelection(kind: .text, set: ordinal, representation: chosen).url(of: url), language: set.language,
                isDefault: set.roles.contains("main"), autoselect: true, codecs: set.representations[chosen].codecs))
        }
        return master
    }

    /// A text set's name for the track list: its label, else its roles but the plain ones, else its place.
    private static func textName(_ set: MPDAdaptationSet, ordinal: Int) -> String {
        if let label = set.label, !label.isEmpty { return label }
        let roles = set.roles.filter { $0 != "main" && $0 != "subtitle" }
        return roles.isEmpty ? "text \(ordinal + 1)" : roles.joined(separator: ", ")
    }

    private static func variant(_ representation: MPDRepresentation, sound: MPDRepresentation?, audioGroup: String?, url: String) -> HLSVariant {
        HLSVariant(uri: url, bandwidth: representation.bandwidth + (sound?.bandwidth ?? 0),
                   resolution: representation.width.flatMap { width in representation.height.map { HLSResolution(width: width, height: $0) } },
                   codecs: representation.codecs + (sound?.codecs ?? []), frameRate: representation.frameRate, audioGroup: audioGroup)
    }

    /// The Representation of the highest bandwidth.
    private static func highest(_ representations: [MPDRepresentation]) -> Int {
        representations.indices.max { representations[$0].bandwidth < representations[$1].bandwidth } ?? 0
    }

    /// Protected media is played when ClearKey can open it: the user gave keys or a license
    /// server, or the manifest names ClearKey (the initialization section's key ID then picks
    /// the key, `SegmentStream.sampleKey`). Otherwise it is refused in one line, naming the DRM
    /// systems: never silence or garbage.
    static func checkProtection(_ set: MPDAdaptationSet, hasClearKeys: Bool) throws(MPDError) {
        let protections = set.representations.flatMap(\.protections)
        guard !protections.isEmpty, !hasClearKeys, !protections.contains(where: { $0.name == "ClearKey" }) else { return }
        guard protections.contains(where: { $0.schemeIdUri.lowercased() != Self.commonEncryption }) else {
            throw MPDError("encrypted (\(protections[0].name)) with no DRM system named: give its key (--dash-clearkey KID:KEY) or a ClearKey license server (--dash-clearkey-server URL)")
        }
        var names: [String] = []
        for protection in protections where protection.schemeIdUri.lowercased() != Self.commonEncryption && !names.contains(protection.name) {
            names.append(protection.name)
        }
        throw MPDError("protected with \(names.joined(separator: ", ")): not supported")
    }

    /// The scheme that says only that the segments are in Common Encryption, not how to get keys.
    private static let commonEncryption = "urn:mpeg:dash:mp4protection:2011"

    /// A protected Representation's segments are marked as samples in Common Encryption, the
    /// ClearKey license server it names (if any) as the key's URI.
    private static func sampleKey(of representation: MPDRepresentation) -> HLSKey? {
        guard !representation.protections.isEmpty else { return nil }
        let server = representation.protections.lazy.filter { $0.name == "ClearKey" }.compactMap(\.licenseURL).first
        return HLSKey(method: .sampleAESCTR, uri: server ?? "")
    }

    // MARK: A Representation's timeline

    private func timeline(of selection: DASHSelection, in mpd: MPD, url: String, stream: SegmentStream) throws(MPDError) -> HLSMediaPlaylist {
        var media = HLSMediaPlaylist()
        media.hasEndList = !mpd.isDynamic
        media.playlistType = mpd.isDynamic ? nil : .vod
        var first: (representation: MPDRepresentation, rank: Int)?
        var origin: Double?
        /// The last listed segment's end, in seconds from the availability start.
        var lastEnd: Double?
        for (periodIndex, period) in mpd.periods.enumerated() {
            guard let representation = Self.representation(selection, in: period, matching: first) else {
                if periodIndex == 0 { throw MPDError("no such Representation (\(selection.text))") }
                Log.network.warning("\(url): Period \(period.id ?? "\(periodIndex + 1)") has no Representation to follow \(first?.representation.id ?? ""); the stream ends before it")
                break
            }
            if first == nil { first = (representation, Self.rank(of: selection, in: period)) }
            // Its media times onto the presentation's, from the first Period's.
            let mediaOrigin = period.start - MPDSegmentIndex.presentationTimeOffset(of: representation)
            // Text onto the video's media times, which the cues are shown by.
            if origin == nil { origin = selection.kind == .text ? Self.videoOrigin(of: period) ?? mediaOrigin : mediaOrigin }
            let timeOffset = mediaOrigin - (origin ?? mediaOrigin)
            guard abs(timeOffset) < Self.timeOffsetLimit else { throw MPDError("Period \(period.id ?? "\(periodIndex + 1)"): times past any presentation") }
            let map = try MPDSegmentIndex.initialization(of: Self.withBaseInit(representation)).map { initialization in
                HLSMap(uri: initialization.urls[0], byteRange: initialization.range.map { HLSByteRange(length: Int64($0.count), offset: $0.lowerBound) },
                       mirrors: Array(initialization.urls.dropFirst()))
            }
            let segments = try self.segments(of: representation, in: period, periodIndex: periodIndex, mpd: mpd, stream: stream)
            guard media.segments.count + segments.count <= MPDSegmentIndex.segmentLimit else {
                throw MPDError("more than \(MPDSegmentIndex.segmentLimit) segments over the Periods")
            }
            if let last = segments.last { lastEnd = period.start + last.start + last.duration }
            for (index, segment) in segments.enumerated() {
                guard let primary = segment.urls.first else { continue }
                media.segments.append(HLSSegment(
                    uri: primary, duration: segment.duration, sequenceNumber: periodIndex << 40 + segment.number,
                    discontinuitySequence: periodIndex, isDiscontinuity: periodIndex > 0 && index == 0,
                    byteRange: segment.range.map { HLSByteRange(length: Int64($0.count), offset: $0.lowerBound) },
                    key: Self.sampleKey(of: representation), map: map, mirrors: Array(segment.urls.dropFirst()), timeOffset: timeOffset))
            }
        }
        media.mediaSequence = media.segments.first?.sequenceNumber ?? 0
        media.targetDuration = media.segments.map(\.duration).max()?.rounded(.up) ?? (mpd.isDynamic ? 2 : 0)
        if mpd.isDynamic {
            media.holdBack = Self.holdBack(mpd, segmentDuration: media.segments.map(\.duration).max() ?? media.targetDuration)
            if let lastEnd, let now = presentationNow(mpd), let last = media.segments.last {
                media.liveEdgeLead = Self.liveEdgeLead(now: now, lastEnd: lastEnd, lastDuration: last.duration)
            }
        }
        return media
    }

    /// Where the first video Representation's media times put `period`'s start.
    private static func videoOrigin(of period: MPDPeriod) -> Double? {
        period.adaptationSets.first { $0.contentType == .video && !$0.representations.isEmpty }
            .map { period.start - MPDSegmentIndex.presentationTimeOffset(of: $0.representations[0]) }
    }

    /// Live: how far behind the live edge to play. ServiceDescription's latency target, else
    /// `suggestedPresentationDelay`, else three segments (as HLS); never under two segments,
    /// since a segment is fetched once it has all arrived.
    static func holdBack(_ mpd: MPD, segmentDuration: Double) -> Double {
        let wanted = mpd.latencyTarget ?? mpd.suggestedPresentationDelay.map { max($0, 3 * segmentDuration) } ?? 3 * segmentDuration
        return max(wanted, 2 * segmentDuration)
    }

    /// How far past the last listed segment's end the live edge is: at most a segment, as one
    /// listed later than that is the manifest's lag (a timeline updated now and then), which
    /// playback can only start behind.
    static func liveEdgeLead(now: Double, lastEnd: Double, lastDuration: Double) -> Double {
        min(max(0, now - lastEnd), lastDuration)
    }

    /// Now on the server's clock (UTCTiming's, else this machine's), in seconds from the
    /// availability start; nil for an MPD with none.
    private func presentationNow(_ mpd: MPD) -> Double? {
        mpd.availabilityStartTime.map { WallClock.now() + (clockOffset ?? 0) - $0 }
    }

    private func segments(of representation: MPDRepresentation, in period: MPDPeriod, periodIndex: Int, mpd: MPD,
                          stream: SegmentStream) throws(MPDError) -> [DASHSegment] {
        guard case let .base(base)? = representation.segments else {
            var liveEdge: (now: Double, depth: Double?)?
            if mpd.isDynamic, let now = presentationNow(mpd) {
                liveEdge = (now - period.start, mpd.timeShiftBufferDepth)
            }
            return try MPDSegmentIndex.segments(of: representation, periodDuration: period.duration, liveEdge: liveEdge)
        }
        let key = "\(periodIndex)/\(representation.id)"
        if let known = indexes[key] { return known }
        guard let range = base.indexRange, let url = representation.baseURLs.first else {
            throw MPDError("Representation \(representation.id): a SegmentBase with no indexRange")
        }
        let bytes: [UInt8]
        do {
            bytes = try stream.fetchRange(url, offset: range.lowerBound, length: Int64(range.count))
        } catch {
            throw MPDError("its index (sidx) at \(url) cannot be fetched: \(error.reason)")
        }
        let sidx = try SidxBox.parse(bytes)
        let segments = MPDSegmentIndex.segments(of: representation, sidx: sidx, indexEnd: range.lowerBound + Int64(sidx.boxEnd))
        indexes[key] = segments
        return segments
    }

    /// A SegmentBase that names no Initialization: its media's bytes before the index.
    private static func withBaseInit(_ representation: MPDRepresentation) -> MPDRepresentation {
        guard case var .base(base)? = representation.segments, base.initialization == nil,
              let index = base.indexRange, index.lowerBound > 0 else { return representation }
        var result = representation
        base.initialization = MPDResource(url: nil, range: 0...(index.lowerBound - 1))
        result.segments = .base(base)
        return result
    }

    /// The Representation `selection` names in `period`: in the first Period, by position; in a
    /// later one, the AdaptationSet at the same position among those of its kind, and in it the
    /// Representation of `first`'s id, else of the same rank by bandwidth.
    private static func representation(_ selection: DASHSelection, in period: MPDPeriod, matching first: (representation: MPDRepresentation, rank: Int)?) -> MPDRepresentation? {
        let sets = period.adaptationSets.filter { $0.contentType == selection.kind && !$0.representations.isEmpty }
        guard selection.set < sets.count else { return nil }
        let representations = sets[selection.set].representations
        guard let first else { return selection.representation < representations.count ? representations[selection.representation] : nil }
        if let same = representations.first(where: { $0.id == first.representation.id }) { return same }
        return representations.sorted { $0.bandwidth < $1.bandwidth }[min(first.rank, representations.count - 1)]
    }

    /// The rank by bandwidth of the Representation `selection` names in its set of `period`.
    private static func rank(of selection: DASHSelection, in period: MPDPeriod) -> Int {
        let sets = period.adaptationSets.filter { $0.contentType == selection.kind && !$0.representations.isEmpty }
        guard selection.set < sets.count else { return 0 }
        let representations = sets[selection.set].representations
        guard selection.representation < representations.count else { return 0 }
        let bandwidth = representations[selection.representation].bandwidth
        return representations.filter { $0.bandwidth < bandwidth }.count
    }

    /// A later Period's times moved further than this, seconds, are refused (about 30 years).
    static let timeOffsetLimit = 1e9
}

/// Which Representation a variant's or rendition's URL names: its kind, its AdaptationSet's
/// position among those of that kind in the first Period, and its position in the set.
struct DASHSelection: Equatable {
    var kind: MPDAdaptationSet.ContentType
    var set: Int
    var representation: Int

    var text: String { "\(kind.rawValue)=\(set)/\(representation)" }

    func url(of document: String) -> String { "\(document)#\(text)" }

    /// The MPD's URL, and the selection its fragment names (nil: the whole presentation).
    static func split(_ url: String) -> (document: String, selection: DASHSelection?) {
        guard let hash = url.lastIndex(of: "#") else { return (url, nil) }
        let fragment = url[url.index(after: hash)...]
        let parts = fragment.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, let kind = MPDAdaptationSet.ContentType(rawValue: String(parts[0])) else { return (url, nil) }
        let numbers = parts[1].split(separator: "/")
        guard numbers.count == 2, let set = Int(numbers[0]), let representation = Int(numbers[1]), set >= 0, representation >= 0 else { return (url, nil) }
        return (String(url[..<hash]), DASHSelection(kind: kind, set: set, representation: representation))
    }
}
