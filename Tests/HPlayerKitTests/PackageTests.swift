import CFFmpeg
import Testing
@testable import HPlayerKit

/// The pure parts of `--hls`: the ladder, the codec strings, the playlists' text, the
/// encryption, the interleaving of picture and sound.
@Suite struct PackageTests {
    @Test("--ladder as given, tallest first")
    func ladder() throws {
        #expect(try Ladder.parse("1080p:5000k,720p:2800k,360p:800k") == Ladder.standard)
        #expect(try Ladder.parse("240p:300k") == [LadderRung(height: 240, bitRate: 300_000)])
    }

    @Test("Ladders that are refused", arguments: ["", "720p", "720:2800k", "720p:2800", "721p:2800k", "360p:800k,720p:2800k", "720p:2800k,720p:1000k", "720p:10k"])
    func ladderRefused(text: String) {
        #expect(throws: MediaError.self) { try Ladder.parse(text) }
    }

    @Test("The standard rungs no taller than the source; a small source gets one rung at its height", arguments: [
        (2160, [1080, 720, 360]), (1080, [1080, 720, 360]), (720, [720, 360]), (480, [360]), (240, [240]), (241, [240]),
    ] as [(Int, [Int])])
    func standardLadder(sourceHeight: Int, heights: [Int]) {
        #expect(Ladder.standard(sourceHeight: sourceHeight).map(\.height) == heights)
    }

    @Test("A rung's width keeps the source's shape, even", arguments: [
        (1920, 1080, 720, 1280), (640, 360, 240, 426), (1280, 720, 360, 640), (720, 576, 360, 450), (1080, 1920, 720, 406),
    ] as [(Int, Int, Int, Int)])
    func rungWidth(sourceWidth: Int, sourceHeight: Int, height: Int, width: Int) {
        #expect(LadderRung(height: height, bitRate: 1).width(sourceWidth: sourceWidth, sourceHeight: sourceHeight) == width)
    }

    @Test("CODECS strings from an SPS and an audio object type")
    func codecStrings() {
        #expect(CodecString.avc(sps: [0x67, 0x64, 0x00, 0x1F, 0xAC][...]) == "avc1.64001F")
        #expect(CodecString.avc(sps: [0x67, 0x42, 0xC0, 0x0D][...]) == "avc1.42C00D")
        #expect(CodecString.avc(sps: [0x67, 0x42][...]) == nil)
        #expect(CodecString.aac(objectType: 2) == "mp4a.40.2")
    }

    @Test("A finished VOD media playlist: target duration rounded, the map before the key, ENDLIST")
    func mediaPlaylist() {
        var options = PackagePlaylists.MediaOptions()
        options.initSection = "v_init.mp4"
        options.keyURI = "key.bin"
        let text = PackagePlaylists.media([WrittenSegment(name: "v_0.m4s", duration: 4, bytes: 1000),
                                           WrittenSegment(name: "v_1.m4s", duration: 4.52, bytes: 1000)], options: options)
        #expect(text == """
            #EXTM3U
            #EXT-X-VERSION:6
            #EXT-X-TARGETDURATION:5
            #EXT-X-MEDIA-SEQUENCE:0
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-MAP:URI="v_init.mp4"
            #EXT-X-KEY:METHOD=AES-128,URI="key.bin"
            #EXTINF:4.000000,
            v_0.m4s
            #EXTINF:4.520000,
            v_1.m4s
            #EXT-X-ENDLIST

            """)
    }

    @Test("A live window: its media sequence, no PLAYLIST-TYPE and no ENDLIST")
    func livePlaylist() {
        var options = PackagePlaylists.MediaOptions()
        options.isComplete = false
        options.isVOD = false
        options.mediaSequence = 7
        let text = PackagePlaylists.media([WrittenSegment(name: "v_7.ts", duration: 2, bytes: 10)], options: options)
        #expect(text == "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:7\n#EXT-X-INDEPENDENT-SEGMENTS\n#EXTINF:2.000000,\nv_7.ts\n")
    }

    @Test("The master playlist: BANDWIDTH the peak segment rate (with the audio rendition's peak), AVERAGE-BANDWIDTH the mean")
    func masterPlaylist() {
        // 1 s of 100 000 bytes (800 kb/s) then 2 s of 100 000 (400 kb/s): peak 800 000, mean 533 334.
        let video = WrittenVariant(playlist: "360p.m3u8", segments: [WrittenSegment(name: "a", duration: 1, bytes: 100_000),
                                                                      WrittenSegment(name: "b", duration: 2, bytes: 100_000)],
                                   width: 640, height: 360, frameRate: 25, codecs: ["avc1.64001E"])
        let audio = WrittenVariant(playlist: "audio.m3u8", segments: [WrittenSegment(name: "c", duration: 3, bytes: 48_000)],
                                   width: 0, height: 0, frameRate: 0, codecs: ["mp4a.40.2"])
        #expect(PackagePlaylists.master([video], usesInitSection: false) == """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-STREAM-INF:BANDWIDTH=800000,AVERAGE-BANDWIDTH=533334,RESOLUTION=640x360,CODECS="avc1.64001E",FRAME-RATE=25.000
            360p.m3u8

            """)
        let withAudio = PackagePlaylists.master([video], audio: audio, usesInitSection: true)
        #expect(withAudio.contains("#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"audio\",NAME=\"main\",DEFAULT=YES,AUTOSELECT=YES,URI=\"audio.m3u8\""))
        #expect(withAudio.contains("BANDWIDTH=928000,AVERAGE-BANDWIDTH=661334,RESOLUTION=640x360,CODECS=\"avc1.64001E,mp4a.40.2\",FRAME-RATE=25.000,AUDIO=\"audio\""))
    }

    @Test("What the encryptor writes, in pieces of any length, the player's decryptor reads back (padding included)", arguments: [0, 1, 15, 16, 17, 5000])
    func encryptionRoundTrip(length: Int) throws {
        let key = (0..<16).map { UInt8($0 * 11 & 255) }
        let plain = (0..<length).map { UInt8($0 * 31 & 255) }
        let iv = SegmentEncryptor.iv(sequenceNumber: 258)
        #expect(iv == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2])
        let encryptor = SegmentEncryptor(key: key, iv: iv)
        var cipher: [UInt8] = []
        var offset = 0
        for size in [7, 1, 40, 4096, 100_000] where offset < plain.count {
            let end = min(offset + size, plain.count)
            plain[offset..<end].withUnsafeBytes { encryptor.encrypt($0) { cipher += $0 } }
            offset = end
        }
        encryptor.finish { cipher += $0 }
        #expect(cipher.count == (length / 16 + 1) * 16)
        let decryptor = try #require(SegmentDecryptor(key: key, iv: iv))
        var decrypted: [UInt8] = []
        cipher.withUnsafeBytes { decryptor.decrypt($0, into: &decrypted) }
        try decryptor.finish(into: &decrypted)
        #expect(decrypted == plain)
    }

    @Test("Picture and sound packets go out in decode order, each once every running stream has one queued; an ended stream is not waited for")
    func interleaving() {
        var interleaver = PacketInterleaver(kinds: [.video, .audio])
        defer { interleaver.release() }
        let packet = av_packet_alloc()!
        defer { var owned: UnsafeMutablePointer<AVPacket>? = packet; av_packet_free(&owned) }
        var out: [(MediaKind, Int64)] = []
        func push(_ kind: MediaKind, _ dts: Int64) {
            packet.pointee.dts = dts
            packet.pointee.pts = dts
            interleaver.push(packet, kind: kind, timeBase: AVRational(num: 1, den: 10))
            while let (next, nextKind) = interleaver.pop() {
                out.append((nextKind, next.pointee.dts))
                interleaver.recycle(next)
            }
        }
        push(.video, 0)
        push(.video, 1)
        #expect(out.isEmpty, "the sound may still bring something earlier")
        push(.audio, 0)
        push(.audio, 5)
        push(.video, 5)
        interleaver.end(.audio)
        push(.video, 6)
        while let (next, nextKind) = interleaver.pop() {
            out.append((nextKind, next.pointee.dts))
            interleaver.recycle(next)
        }
        #expect(out.map(\.0) == [.video, .audio, .video, .video, .audio, .video])
        #expect(out.map(\.1) == [0, 0, 1, 5, 5, 6])
    }

    @Test("The pictures that start segments: the first, then the first at or after each multiple of the duration (half a frame early counts)", arguments: [
        // 25 fps, 2 s segments: frames 0, 50, 100.
        (2.0, 0.04, (0..<120).map { Double($0) * 0.04 }, [0, 50, 100]),
        // 30 fps, 2.01 s segments: frame 60 (2.0 s) is within half a frame of 2.01; frame 120 (4.0 s)
        // is not of 4.02, so 121 (4.033 s).
        (2.01, 1.0 / 30, (0..<130).map { Double($0) / 30 }, [0, 60, 121]),
        // A gap in the pictures (variable frame rate): the first after it starts the next segment.
        (1.0, 0.1, [0, 0.1, 0.5, 2.6, 2.7, 3.05], [0, 3, 5]),
        // No package: none.
        (0, 0.04, [0, 0.04], []),
    ] as [(Double, Double, [Double], [Int])])
    func segmentBoundaries(duration: Double, frameDuration: Double, positions: [Double], starts: [Int]) {
        var boundaries = SegmentBoundaries(duration: duration > 0 ? duration : nil, frameDuration: frameDuration)
        #expect(positions.indices.filter { boundaries.startsSegment(at: positions[$0]) } == starts)
    }
}
