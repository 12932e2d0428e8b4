import Testing
@testable import HPlayerKit

@Suite struct MPDParserTests {
    static func parse(_ text: String, url: String = "http://cdn.example/show/manifest.mpd") throws -> MPD {
        try MPDParser.parse(Array(text.utf8), url: url)
    }

    static func segments(_ representation: MPDRepresentation, period: Double?) throws -> [DASHSegment] {
        try MPDSegmentIndex.segments(of: representation, periodDuration: period)
    }

    @Test("ISO 8601 durations in seconds; malformed ones and years or months of a length refused",
          arguments: [("PT6.0S", 6.0), ("PT1H2M3.5S", 3723.5), ("P1DT2H", 93_600), ("PT0S", 0), ("P0Y0M0DT0H0M6.000S", 6), ("P2W", 1_209_600),
                      ("-PT2S", -2), ("PT", nil), ("6S", nil), ("PT1.5", nil), ("P1M", nil), ("PT1D", nil), ("P1H", nil), ("", nil)] as [(String, Double?)])
    func durations(text: String, seconds: Double?) {
        #expect(ISOTime.duration(text) == seconds)
    }

    @Test("HTTP dates (UTCTiming http-head's Date field) in seconds since 1970; other forms refused",
          arguments: [("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777.0), ("Sun, 29 Nov 2026 14:00:00 GMT", 1_795_960_800),
                      ("Sunday, 06-Nov-94 08:49:37 GMT", nil), ("Sun Nov  6 08:49:37 1994", nil), ("Sun, 06 Nov 1994 08:49:37 UTC", nil),
                      ("Sun, 06 Foo 1994 08:49:37 GMT", nil), ("", nil)] as [(String, Double?)])
    func httpDates(text: String, seconds: Double?) {
        #expect(ISOTime.httpDate(text) == seconds)
    }

    @Test("ISO 8601 dates and times in seconds since 1970, UTC unless a zone says otherwise",
          arguments: [("1970-01-01T00:00:00Z", 0.0), ("2026-11-29T10:00:00Z", 1_795_946_400), ("2026-11-29T10:00:00.250Z", 1_795_946_400.25),
                      ("2026-11-29T11:00:00+01:00", 1_795_946_400), ("2026-11-29T10:00:00", 1_795_946_400), ("2000-02-29T00:00:00Z", 951_782_400),
                      ("2026-13-01T00:00:00Z", nil), ("2026-11-29", nil), ("2026-11-29T10:00:00Q", nil)] as [(String, Double?)])
    func dateTimes(text: String, seconds: Double?) {
        #expect(ISOTime.dateTime(text) == seconds)
    }

    @Test("Template identifiers filled in, with their %0Nd widths and $$; an undefined identifier or a bad format refused",
          arguments: [("chunk-$RepresentationID$-$Number%05d$.m4s", "chunk-v1-00042.m4s"), ("$Bandwidth$/$Time$.mp4", "300000/90000.mp4"),
                      ("a$$b$Number$", "a$b42"), ("$Time%012d$", "000000090000"), ("plain.mp4", "plain.mp4"),
                      ("$Name$.m4s", nil), ("$Number%5d$", nil), ("$Number", nil), ("$RepresentationID%02d$", nil)] as [(String, String?)])
    func templates(template: String, filled: String?) {
        let values = SegmentTemplateURL.Values(representationID: "v1", bandwidth: 300_000, number: 42, time: 90_000)
        #expect((try? SegmentTemplateURL.fill(template, values, representation: "v1")) == filled)
    }

    @Test("Inheritance: BaseURLs at every level, resolved down the tree, several as failover; a Representation takes the AdaptationSet's attributes it leaves out; SegmentTemplate attributes and children merged down from Period and AdaptationSet")
    func inheritance() throws {
        let mpd = try Self.parse("""
            <?xml version="1.0"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT8S" minBufferTime="PT2S">
              <BaseURL>http://a.example/root/</BaseURL>
              <BaseURL>http://b.example/root/</BaseURL>
              <Period id="p0">
                <BaseURL>period/</BaseURL>
                <SegmentTemplate timescale="1000" duration="2000" startNumber="5"/>
                <AdaptationSet mimeType="video/mp4" codecs="avc1.64001f" width="640" height="360" frameRate="30000/1001" lang="en">
                  <Role schemeIdUri="urn:mpeg:dash:role:2011" value="main"/>
                  <SegmentTemplate media="$RepresentationID$/$Number$.m4s" initialization="$RepresentationID$/init.mp4"/>
                  <Representation id="low" bandwidth="400000"/>
                  <Representation id="high" bandwidth="1800000" width="1280" height="720" codecs="avc1.640028">
                    <BaseURL>/elsewhere/</BaseURL>
                    <SegmentTemplate startNumber="1"/>
                  </Representation>
                </AdaptationSet>
              </Period>
            </MPD>
            """)
        #expect(!mpd.isDynamic && mpd.mediaPresentationDuration == 8 && mpd.minBufferTime == 2)
        let period = try #require(mpd.periods.first)
        #expect(period.id == "p0" && period.start == 0 && period.duration == 8)
        let set = try #require(period.adaptationSets.first)
        #expect(set.contentType == .video && set.language == "en" && set.roles == ["main"])
        let (low, high) = (set.representations[0], set.representations[1])
        #expect(low.baseURLs == ["http://a.example/root/period/", "http://b.example/root/period/"])
        #expect(high.baseURLs == ["http://a.example/elsewhere/", "http://b.example/elsewhere/"])
        #expect(low.width == 640 && low.height == 360 && low.codecs == ["avc1.64001f"] && abs((low.frameRate ?? 0) - 29.97) < 0.01)
        #expect(high.width == 1280 && high.codecs == ["avc1.640028"])
        #expect(low.segments == .template(MPDSegmentTemplate(media: "$RepresentationID$/$Number$.m4s", initialization: "$RepresentationID$/init.mp4",
                                                             timing: MPDSegmentTiming(timescale: 1000, duration: 2000, startNumber: 5))))
        let lowSegments = try Self.segments(low, period: period.duration)
        #expect(lowSegments.map(\.number) == [5, 6, 7, 8])
        #expect(lowSegments[0].urls == ["http://a.example/root/period/low/5.m4s", "http://b.example/root/period/low/5.m4s"])
        #expect(try Self.segments(high, period: period.duration).map(\.number) == [1, 2, 3, 4])
        #expect(try MPDSegmentIndex.initialization(of: high)?.urls.first == "http://a.example/elsewhere/high/init.mp4")
    }

    @Test("SegmentTimeline: t, d and r expanded, r=-1 up to the next S or the Period's end, $Time$ from presentationTimeOffset")
    func timeline() throws {
        let mpd = try Self.parse("""
            <MPD type="static" mediaPresentationDuration="PT10S"><Period>
              <AdaptationSet contentType="audio" lang="de">
                <Representation id="a" bandwidth="64000">
                  <SegmentTemplate timescale="10" presentationTimeOffset="100" media="$Time$.m4s" initialization="init.mp4">
                    <SegmentTimeline><S t="100" d="20" r="1"/><S d="15"/><S t="160" d="10" r="-1"/></SegmentTimeline>
                  </SegmentTemplate>
                </Representation>
              </AdaptationSet>
            </Period></MPD>
            """)
        let segments = try Self.segments(mpd.periods[0].adaptationSets[0].representations[0], period: 10)
        #expect(segments.map(\.urls.first) == ["100.m4s", "120.m4s", "140.m4s", "160.m4s", "170.m4s", "180.m4s", "190.m4s"].map { "http://cdn.example/show/\($0)" })
        #expect(segments.map(\.start) == [0, 2, 4, 6, 7, 8, 9])
        #expect(segments.map(\.duration) == [2, 2, 1.5, 1, 1, 1, 1])
        #expect(segments.map(\.number) == Array(1...7))
    }

    @Test("@duration: the last segment ends with the Period; a dynamic Period lists the segments wholly available in the time-shift window")
    func constantDuration() throws {
        var representation = MPDRepresentation(id: "v", bandwidth: 1, baseURLs: ["http://h/"],
                                               segments: .template(MPDSegmentTemplate(media: "$Number$.m4s", timing: MPDSegmentTiming(duration: 2, startNumber: 0))))
        #expect(try Self.segments(representation, period: 5).map(\.duration) == [2, 2, 1])
        let live = try MPDSegmentIndex.segments(of: representation, periodDuration: nil, liveEdge: (now: 21, depth: 6))
        #expect(live.map(\.number) == [7, 8, 9])
        #expect(live.map(\.start) == [14, 16, 18])
        representation.segments = .template(MPDSegmentTemplate(media: "$Number$.m4s", timing: MPDSegmentTiming(duration: 2)))
        #expect(throws: MPDError.self) { try Self.segments(representation, period: nil) }
    }

    @Test("Live: a timeline's r=-1 repeats up to now, a segment not ended by now is not listed, and a Period that has ended lists no @duration segment past its end")
    func liveEdges() throws {
        var representation = MPDRepresentation(id: "v", bandwidth: 1, baseURLs: ["http://h/"], segments: .template(MPDSegmentTemplate(
            media: "$Time$.m4s", timing: MPDSegmentTiming(timeline: [MPDTimelineEntry(time: 0, duration: 2, repeatCount: 1), MPDTimelineEntry(duration: 2, repeatCount: -1)]))))
        let live = try MPDSegmentIndex.segments(of: representation, periodDuration: nil, liveEdge: (now: 9, depth: nil))
        #expect(live.map(\.start) == [0, 2, 4, 6])
        representation.segments = .template(MPDSegmentTemplate(media: "$Time$.m4s", timing: MPDSegmentTiming(timeline: [MPDTimelineEntry(time: 0, duration: 2, repeatCount: 9)])))
        #expect(try MPDSegmentIndex.segments(of: representation, periodDuration: nil, liveEdge: (now: 5, depth: nil)).map(\.start) == [0, 2])
        representation.segments = .template(MPDSegmentTemplate(media: "$Number$.m4s", timing: MPDSegmentTiming(duration: 2, startNumber: 0)))
        #expect(try MPDSegmentIndex.segments(of: representation, periodDuration: 6, liveEdge: (now: 1000, depth: nil)).map(\.number) == [0, 1, 2])
    }

    @Test("SegmentList: media and mediaRange, the Initialization by URL or by range of the BaseURL")
    func segmentList() throws {
        let mpd = try Self.parse("""
            <MPD type="static" mediaPresentationDuration="PT4S"><Period><AdaptationSet mimeType="video/mp4">
              <Representation id="0" bandwidth="1"><BaseURL>one.mp4</BaseURL>
                <SegmentList timescale="1000" duration="2000"><Initialization range="0-99"/>
                  <SegmentURL mediaRange="100-199"/><SegmentURL media="two.mp4" mediaRange="0-49"/></SegmentList>
              </Representation></AdaptationSet></Period></MPD>
            """)
        let representation = mpd.periods[0].adaptationSets[0].representations[0]
        let segments = try Self.segments(representation, period: 4)
        #expect(segments.map(\.urls) == [["http://cdn.example/show/one.mp4"], ["http://cdn.example/show/two.mp4"]])
        #expect(segments.map(\.range) == [100...199, 0...49])
        let initialization = try #require(try MPDSegmentIndex.initialization(of: representation))
        #expect(initialization.urls == ["http://cdn.example/show/one.mp4"] && initialization.range == 0...99)
    }

    @Test("Periods: start from the one before when absent, durations from the next start or the presentation's end")
    func periods() throws {
        let mpd = try Self.parse("""
            <MPD type="static" mediaPresentationDuration="PT30S">
              <Period id="a" duration="PT10S"/><Period id="b"/><Period id="c" start="PT25S"/>
            </MPD>
            """)
        #expect(mpd.periods.map(\.start) == [0, 10, 25])
        #expect(mpd.periods.map(\.duration) == [10, 15, 5])
    }

    @Test("Live attributes: availability start, time-shift depth, delay, update period, the latency target and UTCTiming")
    func dynamic() throws {
        let mpd = try Self.parse("""
            <MPD type="dynamic" availabilityStartTime="2026-11-29T10:00:00Z" timeShiftBufferDepth="PT30S" suggestedPresentationDelay="PT4S"
                 minimumUpdatePeriod="PT2S">
              <ServiceDescription id="0"><Latency target="3500"/></ServiceDescription>
              <UTCTiming schemeIdUri="urn:mpeg:dash:utc:http-xsdate:2014" value="http://time.example/now"/>
              <Period start="PT0S"/>
            </MPD>
            """)
        #expect(mpd.isDynamic && mpd.availabilityStartTime == 1_795_946_400 && mpd.timeShiftBufferDepth == 30)
        #expect(mpd.suggestedPresentationDelay == 4 && mpd.minimumUpdatePeriod == 2 && mpd.latencyTarget == 3.5)
        #expect(mpd.utcTimings == [MPDUTCTiming(scheme: "urn:mpeg:dash:utc:http-xsdate:2014", value: "http://time.example/now")])
        #expect(mpd.periods.first?.duration == nil)
    }

    @Test("ContentProtection noted per Representation, named by scheme, with a ClearKey license server; sets protected by a DRM system alone refused in one line naming it, ClearKey ones played")
    func protection() throws {
        let mpd = try Self.parse("""
            <MPD type="static" mediaPresentationDuration="PT4S"><Period><AdaptationSet mimeType="video/mp4">
              <ContentProtection schemeIdUri="urn:mpeg:dash:mp4protection:2011" value="cenc" default_KID="10000000-1000-1000-1000-100000000001"/>
              <ContentProtection schemeIdUri="urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed"/>
              <Representation id="0" bandwidth="1"><SegmentTemplate media="$Number$" duration="1"/></Representation>
            </AdaptationSet></Period></MPD>
            """)
        let set = mpd.periods[0].adaptationSets[0]
        let clearKey = try Self.parse("""
            <MPD type="static" mediaPresentationDuration="PT4S" xmlns:dashif="https://dashif.org/CPS"><Period><AdaptationSet mimeType="video/mp4">
              <ContentProtection schemeIdUri="urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e" value="ClearKey1.0">
                <dashif:Laurl> https://license.example/ck </dashif:Laurl></ContentProtection>
              <Representation id="0" bandwidth="1"><SegmentTemplate media="$Number$" duration="1"/></Representation>
            </AdaptationSet></Period></MPD>
            """).periods[0].adaptationSets[0]
        #expect(clearKey.representations[0].protections.map(\.name) == ["ClearKey"])
        #expect(clearKey.representations[0].protections[0].licenseURL == "https://license.example/ck")
        #expect(throws: Never.self) { try DASHManifests.checkProtection(clearKey, hasClearKeys: false) }
        #expect(set.representations[0].protections.map(\.name) == ["cenc", "Widevine"])
        #expect(set.representations[0].protections[0].defaultKID == "10000000-1000-1000-1000-100000000001")
        #expect(throws: MPDError("protected with Widevine: not supported")) { try DASHManifests.checkProtection(set, hasClearKeys: false) }
        // Keys given: tried, the initialization section's key ID deciding.
        #expect(throws: Never.self) { try DASHManifests.checkProtection(set, hasClearKeys: true) }
    }

    /// The last: entities are not expanded (no amplification), so the type is the text as written.
    @Test("Malformed manifests each refused with the reason",
          arguments: [("<MPD><Period>", "not well-formed XML"), ("<html/>", "the document is html, not an MPD"), ("<MPD/>", "an MPD with no Period"),
                      ("<MPD type=\"x\"><Period/></MPD>", "MPD type \"x\""),
                      ("<MPD><Period><AdaptationSet><Representation id=\"r\"/></AdaptationSet></Period></MPD>", "Representation r has no bandwidth"),
                      ("<MPD><Period><AdaptationSet><Representation id=\"r\" bandwidth=\"1\"><SegmentTemplate media=\"$Nmber$\" duration=\"1\"/></Representation></AdaptationSet></Period></MPD>",
                       "names an undefined identifier $Nmber$"),
                      ("<MPD><Period><AdaptationSet><Representation id=\"r\" bandwidth=\"1\"><SegmentTemplate media=\"x\"/></Representation></AdaptationSet></Period></MPD>",
                       "neither duration nor SegmentTimeline"),
                      ("<MPD mediaPresentationDuration=\"6 s\"><Period/></MPD>", "mediaPresentationDuration \"6 s\" is not a duration"),
                      ("<MPD><Period><AdaptationSet><Representation id=\"r\" bandwidth=\"9223372036854775807\"/></AdaptationSet></Period></MPD>", "Representation r has no bandwidth"),
                      ("<MPD><Period><AdaptationSet><Representation id=\"r\" bandwidth=\"1\"><SegmentList><SegmentURL mediaRange=\"0-9223372036854775807\"/></SegmentList></Representation></AdaptationSet></Period></MPD>",
                       "mediaRange \"0-9223372036854775807\" is not a byte range"),
                      ("<!DOCTYPE MPD [<!ENTITY a \"aaaa\"><!ENTITY b \"&a;&a;\">]><MPD type=\"&b;\"><Period/></MPD>", "MPD type \"&a;&a;\"")])
    func malformed(text: String, reason: String) {
        #expect {
            _ = try Self.parse(text)
        } throws: { error in
            (error as? MPDError)?.reason.contains(reason) == true
        }
    }

    @Test("A sidx box among the boxes read: version 0 and 1, its references' sizes and durations; a hierarchical or truncated one refused")
    func sidx() throws {
        func box(version: UInt8, references: [(UInt32, UInt32)], truncatedBy cut: Int = 0) -> [UInt8] {
            var body: [UInt8] = [version, 0, 0, 0] + be(1, 4) + be(1000, 4)
            body += version == 0 ? be(500, 4) + be(10, 4) : be(500, 8) + be(10, 8)
            body += be(0, 2) + be(UInt64(references.count), 2)
            for (size, duration) in references { body += be(UInt64(size), 4) + be(UInt64(duration), 4) + be(0x9000_0000, 4) }
            let whole = be(UInt64(body.count + 8), 4) + Array("sidx".utf8) + body
            return Array(whole.dropLast(cut))
        }
        func be(_ value: UInt64, _ count: Int) -> [UInt8] { (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }
        let free = be(12, 4) + Array("free".utf8) + [1, 2, 3, 4]
        for version: UInt8 in [0, 1] {
            let sidx = try SidxBox.parse(free + box(version: version, references: [(300, 2000), (200, 1500)]))
            #expect(sidx.timescale == 1000 && sidx.earliestPresentationTime == 500 && sidx.firstOffset == 10)
            #expect(sidx.references == [.init(size: 300, duration: 2000), .init(size: 200, duration: 1500)])
            #expect(sidx.boxEnd == free.count + box(version: version, references: [(300, 2000), (200, 1500)]).count)
            let representation = MPDRepresentation(id: "r", bandwidth: 1, baseURLs: ["http://h/a.mp4"],
                                                   segments: .base(MPDSegmentBase(indexRange: 900...999, timescale: 1000, presentationTimeOffset: 500)))
            let segments = MPDSegmentIndex.segments(of: representation, sidx: sidx, indexEnd: 1000)
            #expect(segments.map(\.range) == [1010...1309, 1310...1509])
            #expect(segments.map(\.start) == [0, 2] && segments.map(\.duration) == [2, 1.5])
        }
        #expect(throws: MPDError("a sidx box pointing to other sidx boxes (not read yet)")) { try SidxBox.parse(box(version: 0, references: [(0x8000_0100, 1)])) }
        #expect(throws: MPDError("a truncated sidx box")) { try SidxBox.parse(box(version: 0, references: [(100, 1)], truncatedBy: 4)) }
        #expect(throws: MPDError("no sidx box in the index range")) { try SidxBox.parse(free) }
    }

    @Test("A variant's URL names its Representation in a fragment; the MPD's own URL names the presentation",
          arguments: [("http://h/a.mpd#video=0/2", "http://h/a.mpd", DASHSelection(kind: .video, set: 0, representation: 2)),
                      ("http://h/a.mpd?x=1#audio=1/0", "http://h/a.mpd?x=1", DASHSelection(kind: .audio, set: 1, representation: 0)),
                      ("http://h/a.mpd", "http://h/a.mpd", nil), ("http://h/a.mpd#t=10", "http://h/a.mpd#t=10", nil)] as [(String, String, DASHSelection?)])
    func selections(url: String, document: String, selection: DASHSelection?) {
        let split = DASHSelection.split(url)
        #expect(split.document == document && split.selection == selection)
        if let selection { #expect(selection.url(of: document) == url) }
    }
}

@Suite struct PackageManifestTests {
    static func stream(_ name: String, durations: [Double]) -> WrittenVariant {
        WrittenVariant(playlist: "\(name).m3u8", segments: durations.enumerated().map { WrittenSegment(name: "\(name)_\($0).m4s", duration: $1, bytes: 1000) },
                       width: 640, height: 360, frameRate: 25, codecs: ["avc1.64001e"], initSection: "\(name)_init.mp4", name: name)
    }

    @Test("The packager's MPD, read back by our parser: a static one lists every segment with its time; a live one the window, from its number and time; an ended live one is static, its window alone, from the window's start")
    func readBack() throws {
        let video = [Self.stream("360p", durations: [2, 2, 2, 1.5]), Self.stream("180p", durations: [2, 2, 2, 1.5])]
        let audio = Self.stream("audio", durations: [2, 2, 2, 1.5])
        var options = PackageManifest.Options()
        options.segmentDuration = 2
        for (window, isComplete) in [(nil, true), (2, false), (2, true)] as [(Int?, Bool)] {
            options.window = window
            options.isComplete = isComplete
            options.availabilityStart = 1_795_946_400
            let text = PackageManifest.mpd(video: video, audio: audio, options: options)
            let mpd = try MPDParser.parse(Array(text.utf8), url: "http://h/p/manifest.mpd")
            #expect(mpd.isDynamic == !isComplete)
            // An ended live package lists its window alone, which the presentation starts with.
            #expect(isComplete ? mpd.mediaPresentationDuration == (window == nil ? 7.5 : 3.5) : mpd.availabilityStartTime == 1_795_946_400)
            let representation = mpd.periods[0].adaptationSets[0].representations[0]
            #expect(representation.id == "360p" && representation.width == 640)
            let segments = try MPDSegmentIndex.segments(of: representation, periodDuration: mpd.periods[0].duration)
            let listed = window == nil ? [0, 1, 2, 3] : [2, 3]
            let firstStart = isComplete ? Double(listed[0]) * 2 : 0
            #expect(segments.map(\.urls) == listed.map { ["http://h/p/360p_\($0).m4s"] })
            #expect(segments.map(\.number) == listed && segments.map(\.start) == listed.map { Double($0) * 2 - firstStart })
            #expect(try MPDSegmentIndex.initialization(of: representation)?.urls == ["http://h/p/360p_init.mp4"])
            #expect(mpd.periods[0].adaptationSets[1].contentType == .audio && mpd.periods[0].adaptationSets[1].roles == ["main"])
        }
    }

    @Test("Times in xs:dateTime, to the millisecond, read back alike", arguments: [0.0, 1_795_946_400.25, 951_782_400, -86_400.5])
    func dateTimeText(seconds: Double) {
        #expect(ISOTime.dateTime(ISOTime.dateTimeText(seconds)) == seconds)
    }
}
