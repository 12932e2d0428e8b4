import CFFmpeg
import Testing
@testable import HPlayerKit

@Suite struct CENCTests {
    static let keyID = ClearKey.bytes(hex: "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf")!
    static let key = ClearKey.bytes(hex: "00112233445566778899aabbccddeeff")!

    @Test("--dash-clearkey lists: KID:KEY pairs in hex, a key ID also as a UUID; anything else refused with the reason",
          arguments: [("a0a1a2a3a4a5a6a7a8a9aaabacadaeaf:00112233445566778899aabbccddeeff", 1, nil),
                      ("a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf:00112233445566778899AABBCCDDEEFF,b0b1b2b3b4b5b6b7b8b9babbbcbdbebf:00112233445566778899aabbccddeeff", 2, nil),
                      ("a0a1a2a3a4a5a6a7a8a9aaabacadaeaf", 0, "expected KID:KEY pairs separated by commas"),
                      ("a0a1:00112233445566778899aabbccddeeff", 0, "a key ID is 32 hex digits, got 'a0a1'"),
                      ("a0a1a2a3a4a5a6a7a8a9aaabacadaeaf:0011223344556677889900112233445x", 0, "the key for a0a1a2a3a4a5a6a7a8a9aaabacadaeaf is not 32 hex digits")]
                      as [(String, Int, String?)])
    func keyLists(text: String, count: Int, refusal: String?) {
        do {
            let keys = try ClearKey.parseList(text)
            #expect(refusal == nil && keys.count == count && keys[0].keyID == Self.keyID && keys[0].key == Self.key)
        } catch {
            #expect(error.reason == refusal)
        }
    }

    @Test("A license request names the key IDs in unpadded base64url; a license's keys are read back, and a malformed one refused with the reason")
    func license() throws {
        #expect(String(decoding: ClearKeyLicense.request(keyIDs: [Self.keyID]), as: UTF8.self) == #"{"kids":["oKGio6SlpqeoqaqrrK2urw"],"type":"temporary"}"#)
        let keys = try ClearKeyLicense.keys(in: Array(#"{"keys":[{"kty":"oct","kid":"oKGio6SlpqeoqaqrrK2urw","k":"ABEiM0RVZneImaq7zN3u_w"}],"type":"temporary"}"#.utf8))
        #expect(keys == [ClearKey(keyID: Self.keyID, key: Self.key)])
        #expect(throws: ClearKeyError("not a ClearKey license (a JSON Web Key Set with keys of kid and k)")) { try ClearKeyLicense.keys(in: Array("<html/>".utf8)) }
        #expect(throws: ClearKeyError("a key not of type oct")) {
            try ClearKeyLicense.keys(in: Array(#"{"keys":[{"kty":"RSA","kid":"oKGio6SlpqeoqaqrrK2urw","k":"ABEiM0RVZneImaq7zN3u_w"}]}"#.utf8))
        }
        #expect(throws: ClearKeyError("the key for a0a1a2a3a4a5a6a7a8a9aaabacadaeaf is not 16 bytes of base64url")) {
            try ClearKeyLicense.keys(in: Array(#"{"keys":[{"kid":"oKGio6SlpqeoqaqrrK2urw","k":"ABEi"}]}"#.utf8))
        }
    }

    // MARK: A synthetic H.264 track: an init section and one fragment of two samples

    static func initSection() -> [UInt8] {
        let tkhd = MP4Boxes.fullBox("tkhd", [UInt8](repeating: 0, count: 8) + MP4Boxes.bytes(UInt32(1)) + [UInt8](repeating: 0, count: 68))
        let hdlr = MP4Boxes.fullBox("hdlr", [0, 0, 0, 0] + Array("vide".utf8) + [UInt8](repeating: 0, count: 13))
        // avcC: version 1, profile, compatibility, level, then 0xFF (NAL lengths of 4 bytes).
        let avc1 = MP4Boxes.box("avc1", [UInt8](repeating: 0, count: 78) + MP4Boxes.box("avcC", [1, 0x64, 0, 0x1e, 0xff, 0xe0, 0]))
        let stsd = MP4Boxes.fullBox("stsd", MP4Boxes.bytes(UInt32(1)) + avc1)
        let trak = MP4Boxes.box("trak", tkhd + MP4Boxes.box("mdia", hdlr + MP4Boxes.box("minf", MP4Boxes.box("stbl", stsd))))
        return MP4Boxes.box("ftyp", Array("iso6".utf8) + [0, 0, 0, 0]) + MP4Boxes.box("moov", trak)
    }

    /// An SEI (left clear) and an IDR slice; then a non-IDR slice.
    static let samples: [[UInt8]] = [[0, 0, 0, 5, 0x06, 1, 2, 3, 4] + [0, 0, 0, 20, 0x65] + Array(1...19),
                                     [0, 0, 0, 30, 0x41] + Array(100...128)]

    static func fragment() -> [UInt8] {
        func moof(dataOffset: UInt32) -> [UInt8] {
            let tfhd = MP4Boxes.fullBox("tfhd", flags: 0x02_0000, MP4Boxes.bytes(UInt32(1)))
            let trun = MP4Boxes.fullBox("trun", flags: 0x201, MP4Boxes.bytes(UInt32(2)) + MP4Boxes.bytes(dataOffset)
                                        + samples.flatMap { MP4Boxes.bytes(UInt32($0.count)) })
            return MP4Boxes.box("moof", MP4Boxes.fullBox("mfhd", MP4Boxes.bytes(UInt32(1))) + MP4Boxes.box("traf", tfhd + trun))
        }
        let size = moof(dataOffset: 0).count
        return moof(dataOffset: UInt32(size + 8)) + MP4Boxes.box("mdat", samples.flatMap { $0 })
    }

    @Test("An init section made encrypted: encv with frma avc1, schm cenc and tenc's key ID, read back as such; the clear one reads as clear")
    func initSectionProtected() throws {
        let clear = Self.initSection()
        #expect(CENCProtection.read(initSection: clear) == nil)
        let (protected, tracks) = try CENCInitSection.protect(clear, keyID: Self.keyID)
        #expect(tracks == [1: CENCTrack(nalLengthSize: 4, isHEVC: false, defaultSampleSize: nil)])
        #expect(CENCProtection.read(initSection: protected) == CENCProtection(scheme: "cenc", keyID: Self.keyID))
        // Every box still spans its parent exactly.
        let moov = try #require(MP4Boxes.children(of: protected).last)
        #expect(moov.type == "moov" && moov.range.upperBound == protected.count)
    }

    @Test("A fragment encrypted: the mdat keeps its size, lengths, NAL headers and the SEI stay clear, the slices' bodies change; the trun's data offset moves by what the moof grew; senc's IVs and subsamples decrypt it back, and saio points at the first IV")
    func fragmentEncrypted() throws {
        let (_, tracks) = try CENCInitSection.protect(Self.initSection(), keyID: Self.keyID)
        let clear = Self.fragment()
        let encrypted = try CENCFragmentEncryptor(key: Self.key, tracks: tracks).encrypt(clear)
        let boxes = MP4Boxes.children(of: encrypted)
        let (moof, mdat) = (boxes[0], boxes[1])
        #expect(boxes.map(\.type) == ["moof", "mdat"] && mdat.range.count == clear.count - MP4Boxes.children(of: clear)[0].range.count)
        let traf = try #require(MP4Boxes.child("traf", of: moof, in: encrypted))
        let parts = MP4Boxes.children(of: encrypted, in: traf.payload)
        #expect(parts.map(\.type) == ["tfhd", "trun", "saiz", "saio", "senc"])
        let trun = parts[1], saio = parts[3], senc = parts[4]
        #expect(MP4Boxes.uint32(encrypted, at: trun.payload.lowerBound + 8) == UInt32(moof.range.count + 8))
        #expect(MP4Boxes.uint32(encrypted, at: saio.payload.lowerBound + 8) == UInt32(senc.payload.lowerBound + 8 - moof.range.lowerBound))
        var data = Array(encrypted[mdat.payload])
        let clearData = Self.samples.flatMap { $0 }
        #expect(data[0..<14] == clearData[0..<14] && data[14..<33] != clearData[14..<33] && data[33..<38] == clearData[33..<38] && data[38...] != clearData[38...])
        // senc: flags 2 (subsamples), then per sample an 8-byte IV, a count, (clear, protected) pairs.
        #expect(MP4Boxes.uint32(encrypted, at: senc.payload.lowerBound) == 2 && MP4Boxes.uint32(encrypted, at: senc.payload.lowerBound + 4) == 2)
        var position = senc.payload.lowerBound + 8
        var sampleStart = 0
        let context = try #require(av_aes_ctr_alloc())
        defer { av_aes_ctr_free(context) }
        Self.key.withUnsafeBufferPointer { _ = av_aes_ctr_init(context, $0.baseAddress) }
        var layouts: [[[Int]]] = []
        for sample in Self.samples {
            Array(encrypted[position..<(position + 8)]).withUnsafeBufferPointer { av_aes_ctr_set_iv(context, $0.baseAddress) }
            let count = Int(MP4Boxes.uint16(encrypted, at: position + 8)!)
            position += 10
            var offset = sampleStart
            var layout: [[Int]] = []
            for _ in 0..<count {
                let clearBytes = Int(MP4Boxes.uint16(encrypted, at: position)!), protectedBytes = Int(MP4Boxes.uint32(encrypted, at: position + 2)!)
                layout.append([clearBytes, protectedBytes])
                offset += clearBytes
                data.withUnsafeMutableBufferPointer { av_aes_ctr_crypt(context, $0.baseAddress! + offset, $0.baseAddress! + offset, Int32(protectedBytes)) }
                offset += protectedBytes
                position += 6
            }
            layouts.append(layout)
            sampleStart += sample.count
        }
        #expect(layouts == [[[14, 19]], [[5, 29]]])
        #expect(data == clearData)
    }

    @Test("Hostile init sections read as clear or as what they say, never past their end", arguments: [0, 7, 40, 120, 200])
    func truncatedInitSections(length: Int) throws {
        let protected = try CENCInitSection.protect(Self.initSection(), keyID: Self.keyID).bytes
        #expect(CENCProtection.read(initSection: Array(protected.prefix(length))) == nil)
    }
}

@Suite struct LocalDocumentTests {
    @Test("A local manifest's path as a file URL and back: spaces and percent signs encoded, what it names resolved beside it",
          arguments: [("/tmp/a b/manifest.mpd", "file:///tmp/a%20b/manifest.mpd"), ("/tmp/100%/x.mpd", "file:///tmp/100%25/x.mpd"),
                      ("file:///tmp/x.mpd", "file:///tmp/x.mpd"), ("http://host/x.mpd", "http://host/x.mpd")])
    func fileURLs(path: String, url: String) {
        #expect(LocalDocumentResource.fileURL(for: path) == url)
        if !path.hasPrefix("http") { #expect(FileURL.path(ofURI: url) == (path.hasPrefix("file://") ? "/tmp/x.mpd" : path)) }
        #expect(HLSURL.resolve("seg%201.m4s", against: url).hasSuffix("/seg%201.m4s"))
    }

    @Test("Local and remote manifests go to our DASH client; other schemes do not",
          arguments: [("/m/x.mpd", true), ("x.MPD?a", true), ("file:///m/x.mpd", true), ("https://h/x.mpd", true), ("udp://h/x.mpd", false), ("/m/x.m3u8", false)])
    func dashInputs(url: String, isDASH: Bool) {
        #expect(NetworkOptions.isDASH(url) == isDASH)
    }
}
