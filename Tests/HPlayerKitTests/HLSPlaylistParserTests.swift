import Testing
@testable import HPlayerKit

@Suite struct HLSPlaylistParserTests {
    static func media(_ text: String) throws -> HLSMediaPlaylist {
        guard case let .media(playlist) = try HLSPlaylistParser.parse(text) else { throw HLSPlaylistError(line: 0, reason: "not media") }
        return playlist
    }

    static func master(_ text: String) throws -> HLSMasterPlaylist {
        guard case let .master(playlist) = try HLSPlaylistParser.parse(text) else { throw HLSPlaylistError(line: 0, reason: "not master") }
        return playlist
    }

    @Test("A master playlist: every variant attribute, the renditions of its groups, CRLF line ends")
    func masterPlaylist() throws {
        let playlist = try Self.master("""
            #EXTM3U\r
            #EXT-X-INDEPENDENT-SEGMENTS\r
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="audio/en.m3u8"\r
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="Deutsch",LANGUAGE="de",URI="audio/de.m3u8"\r
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",URI="subs/en.m3u8"\r
            #EXT-X-STREAM-INF:BANDWIDTH=1280000,AVERAGE-BANDWIDTH=1000000,RESOLUTION=640x360,CODECS="avc1.4d401e,mp4a.40.2",FRAME-RATE=29.970,AUDIO="aud",SUBTITLES="subs"\r
            low/index.m3u8\r
            # a comment, and an unknown tag, both ignored\r
            #EXT-X-FUTURE-TAG:X=1\r
            #EXT-X-STREAM-INF:BANDWIDTH=2560000,RESOLUTION=1280x720\r
            http://cdn.example/high/index.m3u8\r
            """)
        #expect(playlist.hasIndependentSegments)
        #expect(playlist.variants == [
            HLSVariant(uri: "low/index.m3u8", bandwidth: 1_280_000, averageBandwidth: 1_000_000, resolution: HLSResolution(width: 640, height: 360),
                       codecs: ["avc1.4d401e", "mp4a.40.2"], frameRate: 29.97, audioGroup: "aud", subtitlesGroup: "subs"),
            HLSVariant(uri: "http://cdn.example/high/index.m3u8", bandwidth: 2_560_000, resolution: HLSResolution(width: 1280, height: 720)),
        ])
        #expect(playlist.renditions == [
            HLSRendition(kind: .audio, groupID: "aud", name: "English", uri: "audio/en.m3u8", language: "en", isDefault: true, autoselect: true, channels: "2"),
            HLSRendition(kind: .audio, groupID: "aud", name: "Deutsch", uri: "audio/de.m3u8", language: "de"),
            HLSRendition(kind: .subtitles, groupID: "subs", name: "English", uri: "subs/en.m3u8", language: "en"),
        ])
    }

    @Test("A VOD media playlist: sequence numbers from MEDIA-SEQUENCE, titles, the end list")
    func vodPlaylist() throws {
        let playlist = try Self.media("""
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:4
            #EXT-X-MEDIA-SEQUENCE:7
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXTINF:4.000,first
            seg7.ts
            #EXTINF:3.5,
            seg8.ts
            #EXT-X-ENDLIST
            """)
        #expect(playlist.targetDuration == 4 && playlist.mediaSequence == 7 && playlist.playlistType == .vod && playlist.hasEndList)
        #expect(!playlist.isLive && playlist.duration == 7.5)
        #expect(playlist.segments == [
            HLSSegment(uri: "seg7.ts", duration: 4, title: "first", sequenceNumber: 7),
            HLSSegment(uri: "seg8.ts", duration: 3.5, sequenceNumber: 8),
        ])
    }

    @Test("Discontinuities counted from DISCONTINUITY-SEQUENCE; a live playlist (no end list); the date-time kept")
    func discontinuitiesAndLive() throws {
        let playlist = try Self.media("""
            #EXTM3U
            #EXT-X-TARGETDURATION:2
            #EXT-X-MEDIA-SEQUENCE:100
            #EXT-X-DISCONTINUITY-SEQUENCE:3
            #EXT-X-PROGRAM-DATE-TIME:2026-11-23T10:00:00.000Z
            #EXTINF:2,
            a.ts
            #EXT-X-DISCONTINUITY
            #EXTINF:2,
            b.ts
            #EXTINF:2,
            c.ts
            """)
        #expect(playlist.isLive)
        #expect(playlist.segments.map(\.discontinuitySequence) == [3, 4, 4])
        #expect(playlist.segments.map(\.isDiscontinuity) == [false, true, false])
        #expect(playlist.segments.map(\.sequenceNumber) == [100, 101, 102])
        #expect(playlist.segments.map(\.programDateTime) == ["2026-11-23T10:00:00.000Z", nil, nil])
    }

    @Test("Byte ranges (an offset carried on from the range before), the init section of fMP4, keys with and without an IV")
    func rangesMapsAndKeys() throws {
        let playlist = try Self.media("""
            #EXTM3U
            #EXT-X-TARGETDURATION:2
            #EXT-X-MEDIA-SEQUENCE:5
            #EXT-X-MAP:URI="init.mp4",BYTERANGE="720@0"
            #EXT-X-KEY:METHOD=AES-128,URI="key.bin",IV=0x0102030405060708090A0B0C0D0E0F10
            #EXT-X-BYTERANGE:1000@720
            #EXTINF:2,
            media.mp4
            #EXT-X-BYTERANGE:500
            #EXTINF:2,
            media.mp4
            #EXT-X-KEY:METHOD=AES-128,URI="key2.bin"
            #EXTINF:2,
            other.mp4
            #EXT-X-KEY:METHOD=NONE
            #EXTINF:2,
            clear.mp4
            """)
        let map = HLSMap(uri: "init.mp4", byteRange: HLSByteRange(length: 720, offset: 0))
        let firstKey = HLSKey(method: .aes128, uri: "key.bin", iv: Array(1...16))
        let secondKey = HLSKey(method: .aes128, uri: "key2.bin")
        #expect(playlist.segments == [
            HLSSegment(uri: "media.mp4", duration: 2, sequenceNumber: 5, byteRange: HLSByteRange(length: 1000, offset: 720), key: firstKey, map: map),
            HLSSegment(uri: "media.mp4", duration: 2, sequenceNumber: 6, byteRange: HLSByteRange(length: 500, offset: 1720), key: firstKey, map: map),
            HLSSegment(uri: "other.mp4", duration: 2, sequenceNumber: 7, key: secondKey, map: map),
            HLSSegment(uri: "clear.mp4", duration: 2, sequenceNumber: 8, map: map),
        ])
        // No IV given: the sequence number, big-endian, in 16 bytes.
        #expect(secondKey.iv(forSequence: 7) == [UInt8](repeating: 0, count: 15) + [7])
        #expect(secondKey.iv(forSequence: 0x0102) == [UInt8](repeating: 0, count: 14) + [1, 2])
        #expect(firstKey.iv(forSequence: 7) == Array(1...16))
    }

    @Test("A malformed playlist is an error naming the line", arguments: [
        ("not a playlist", 1, "not a playlist: it must begin with #EXTM3U"),
        ("#EXTM3U\n#EXTINF:2,\na.ts", 1, "a media playlist without EXT-X-TARGETDURATION"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:two,\na.ts", 3, "EXTINF without a duration in seconds"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\na.ts", 3, "a segment URI with no EXTINF before it"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:x", 2, "EXT-X-TARGETDURATION x is not a number of seconds"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-BYTERANGE:100\n#EXTINF:2,\na.ts", 3,
         "EXT-X-BYTERANGE without an offset, and no range of a.ts before it"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.ts\n#EXT-X-MEDIA-SEQUENCE:4", 5, "EXT-X-MEDIA-SEQUENCE after the first segment"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:METHOD=AES-128", 3, "EXT-X-KEY without URI"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:METHOD=AES-128,URI=\"k\",IV=0xZZ", 3, "EXT-X-KEY IV 0xZZ is not 0x and up to 32 hex digits"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MAP:URI=\"init.mp4", 3, "attribute URI has an unclosed quote"),
        ("#EXTM3U\n#EXT-X-STREAM-INF:RESOLUTION=640x360\nlow.m3u8", 2, "EXT-X-STREAM-INF without BANDWIDTH"),
        ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,RESOLUTION=wide\nlow.m3u8", 2, "RESOLUTION wide is not WIDTHxHEIGHT"),
        ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1", 2, "EXT-X-STREAM-INF with no URI after it"),
        ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nlow.m3u8\n#EXTINF:2,\na.ts", 4,
         "a master playlist (EXT-X-STREAM-INF, EXT-X-MEDIA) cannot list segments (EXTINF)"),
        ("#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,NAME=\"x\"", 2, "EXT-X-MEDIA without GROUP-ID and NAME"),
    ])
    func malformed(text: String, line: Int, reason: String) {
        #expect(throws: HLSPlaylistError(line: line, reason: reason)) { try HLSPlaylistParser.parse(text) }
    }
}

@Suite struct HLSURLTests {
    @Test("A playlist's URIs resolved against its URL", arguments: [
        ("seg1.ts", "http://h.test/a/b/index.m3u8", "http://h.test/a/b/seg1.ts"),
        ("../c/seg1.ts", "http://h.test/a/b/index.m3u8", "http://h.test/a/c/seg1.ts"),
        ("./v1/index.m3u8", "https://h.test:8443/master.m3u8?token=1", "https://h.test:8443/v1/index.m3u8"),
        ("/root/seg.ts?x=2", "http://h.test/a/b/index.m3u8", "http://h.test/root/seg.ts?x=2"),
        ("//cdn.test/seg.ts", "https://h.test/a/index.m3u8", "https://cdn.test/seg.ts"),
        ("http://other.test/seg.ts", "https://h.test/a/index.m3u8", "http://other.test/seg.ts"),
        ("../../../seg.ts", "http://h.test/a/index.m3u8", "http://h.test/seg.ts"),
        ("seg.ts", "http://h.test", "http://h.test/seg.ts"),
        // A URL in the query does not make the reference absolute.
        ("seg1.ts?cb=https://x.test/", "http://h.test/a/index.m3u8", "http://h.test/a/seg1.ts?cb=https://x.test/"),
    ])
    func resolves(reference: String, base: String, resolved: String) {
        #expect(HLSURL.resolve(reference, against: base) == resolved)
    }

    @Test("The server a throughput estimate is kept for", arguments: [
        ("http://H.test/a/master.m3u8", "http://h.test"),
        ("https://user:pw@h.test:8443/master.m3u8?x=1", "https://h.test:8443"),
        ("http://127.0.0.1:8080?x=1", "http://127.0.0.1:8080"),
        ("http://h.test", "http://h.test"),
        ("/local/master.m3u8", nil), ("http:///x", nil),
    ])
    func server(url: String, server: String?) {
        #expect(HLSURL.server(of: url) == server)
    }
}

@Suite struct HLSBitrateTests {
    static let variants = [400_000, 1_800_000, 1_000_000].map { HLSVariant(uri: "v\($0)", bandwidth: $0) }

    @Test("--hls-bitrate: the variant chosen, in any order the master lists them", arguments: [
        ("max", 1), ("min", 0), ("1000000", 2), ("1799999", 2), ("5000000", 1), ("100", 0), ("auto", 0),
    ])
    func chooses(text: String, index: Int) throws {
        let bitrate = try #require(HLSBitrate(text))
        #expect(bitrate.choose(among: Self.variants) == index)
    }

    @Test("Anything else is refused", arguments: ["", "maximum", "-5", "0", "1.5e6"])
    func refuses(text: String) {
        #expect(HLSBitrate(text) == nil)
    }

    @Test("A failed segment comes from the next lower variant, else the next higher", arguments: [(1, 2), (2, 0), (0, 2)])
    func alternate(failed: Int, alternate: Int) {
        #expect(HLSBitrate.alternate(to: failed, among: Self.variants) == alternate)
        #expect(HLSBitrate.alternate(to: 0, among: [Self.variants[0]]) == nil)
    }

    /// An audio-only variant, two H.264 ones and an HEVC one.
    static let mixed = [
        HLSVariant(uri: "audio", bandwidth: 64_000, codecs: ["mp4a.40.2"]),
        HLSVariant(uri: "low", bandwidth: 500_000, codecs: ["avc1.42e01e", "mp4a.40.2"]),
        HLSVariant(uri: "high", bandwidth: 3_000_000, codecs: ["avc1.640028", "mp4a.40.2"]),
        HLSVariant(uri: "hevc", bandwidth: 2_000_000, codecs: ["hvc1.1.6.L93.B0", "mp4a.40.2"]),
    ]

    @Test func onlyVariantsThatCanFollowEachOther() {
        // auto starts from the lowest with a picture, and moves only among its codec's variants.
        #expect(HLSBitrate.auto.choose(among: Self.mixed) == 1)
        #expect(HLSBitrate.interchangeable(with: 1, among: Self.mixed) == [1, 2])
        #expect(HLSBitrate.interchangeable(with: nil, among: Self.mixed) == [1, 3, 2])
        #expect(HLSBitrate.alternate(to: 2, among: Self.mixed) == 1)
        #expect(HLSBitrate.alternate(to: 3, among: Self.mixed) == nil)
        // Variants that declare no codecs are taken as alike.
        #expect(HLSBitrate.interchangeable(with: 0, among: Self.variants) == [0, 2, 1])
        // A variant of another AUDIO group would change the soundtrack: not switched to.
        var grouped = Self.variants
        grouped[2].audioGroup = "surround"
        #expect(HLSBitrate.interchangeable(with: 0, among: grouped) == [0, 1])
        // Unless both groups' renditions are streams of their own: the sound then follows.
        grouped[0].audioGroup = "stereo"
        grouped[1].audioGroup = "stereo"
        let separate = [HLSRendition(kind: .audio, groupID: "stereo", name: "English", uri: "a.m3u8"),
                        HLSRendition(kind: .audio, groupID: "surround", name: "English", uri: "b.m3u8")]
        #expect(HLSBitrate.interchangeable(with: 0, among: grouped, renditions: separate) == [0, 2, 1])
        // A group whose sound is muxed into the variant (a rendition without URI) is not.
        let muxed = [separate[0], HLSRendition(kind: .audio, groupID: "surround", name: "English")]
        #expect(HLSBitrate.interchangeable(with: 0, among: grouped, renditions: muxed) == [0, 1])
    }

    /// Two groups of renditions: "lo" English (default) and French, "hi" French (default),
    /// English and Commentary (English), and German.
    static let groups: HLSMasterPlaylist = {
        var master = HLSMasterPlaylist()
        master.variants = [HLSVariant(uri: "v0", bandwidth: 1, audioGroup: "lo"), HLSVariant(uri: "v1", bandwidth: 2, audioGroup: "hi"),
                           HLSVariant(uri: "v2", bandwidth: 3)]
        master.renditions = [
            HLSRendition(kind: .audio, groupID: "lo", name: "English", uri: "lo-en", language: "en", isDefault: true),
            HLSRendition(kind: .audio, groupID: "lo", name: "French", uri: "lo-fr", language: "fr"),
            HLSRendition(kind: .audio, groupID: "lo", name: "Swedish", uri: "lo-sv", language: "sv"),
            HLSRendition(kind: .audio, groupID: "hi", name: "French", uri: "hi-fr", language: "fr", isDefault: true),
            HLSRendition(kind: .audio, groupID: "hi", name: "Commentary", uri: "hi-cm", language: "en"),
            HLSRendition(kind: .audio, groupID: "hi", name: "English", uri: "hi-en", language: "en"),
        ]
        return master
    }()

    @Test("The rendition the sound follows to in another group: its language, by name among several; else the group's default", arguments: [
        ("lo-en", 1, "hi-en"), ("lo-fr", 1, "hi-fr"), ("lo-sv", 1, "hi-fr"), ("hi-cm", 0, "lo-en"), ("hi-en", 0, "lo-en"), ("lo-en", 2, nil),
    ] as [(String, Int, String?)])
    func audioRenditionFollowing(current: String, variant: Int, next: String?) {
        let playing = Self.groups.renditions.first { $0.uri == current }
        #expect(Self.groups.audioRendition(of: Self.groups.variants[variant], following: playing)?.uri == next)
    }

    @Test("The default audio rendition: the group's DEFAULT=YES one, else its AUTOSELECT=YES one, else its first", arguments: [
        ([(false, false), (false, true), (true, true)], 2), ([(false, false), (false, true), (false, true)], 1),
        ([(false, false), (false, false)], 0), ([], nil),
    ] as [([(Bool, Bool)], Int?)])
    func defaultAudioRendition(flags: [(Bool, Bool)], chosen: Int?) {
        var master = HLSMasterPlaylist()
        master.renditions = [HLSRendition(kind: .audio, groupID: "other", name: "elsewhere", uri: "x.m3u8", isDefault: true)]
        for (index, (isDefault, autoselect)) in flags.enumerated() {
            master.renditions.append(HLSRendition(kind: .audio, groupID: "aud", name: "r\(index)", uri: "r\(index).m3u8",
                                                  isDefault: isDefault, autoselect: autoselect))
        }
        master.renditions.append(HLSRendition(kind: .subtitles, groupID: "aud", name: "subtitles", uri: "s.m3u8", isDefault: true))
        var variant = HLSVariant(uri: "v.m3u8", bandwidth: 1_000_000)
        variant.audioGroup = "aud"
        #expect(master.defaultAudioRendition(of: variant)?.name == chosen.map { "r\($0)" })
        variant.audioGroup = nil
        #expect(master.defaultAudioRendition(of: variant) == nil)
    }
}
