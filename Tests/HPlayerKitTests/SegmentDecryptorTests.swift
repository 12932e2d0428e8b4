import Testing
@testable import HPlayerKit

@Suite struct SegmentDecryptorTests {
    static let key: [UInt8] = bytes("2b7e151628aed2a6abf7158809cf4f3c")
    static let iv: [UInt8] = bytes("000102030405060708090a0b0c0d0e0f")
    /// `openssl aes-128-cbc` of the 31 bytes "segment bytes: 32 of them, yes." (one byte of padding).
    static let ciphertext: [UInt8] = bytes("fdc45973415627b66e4a90b6e362e0a3389916df909891c3d0cc0cc92bbc1e60")

    static func bytes(_ hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            result.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return result
    }

    func decrypt(_ chunks: [ArraySlice<UInt8>], key: [UInt8] = key) throws(SegmentDecryptionError) -> [UInt8] {
        let decryptor = SegmentDecryptor(key: key, iv: Self.iv)!
        var output: [UInt8] = []
        for chunk in chunks { chunk.withUnsafeBytes { decryptor.decrypt($0, into: &output) } }
        try decryptor.finish(into: &output)
        return output
    }

    @Test("Whatever the chunks the ciphertext arrives in, the plaintext is openssl's, its padding taken off",
          arguments: [[32], [1, 31], [16, 16], [15, 2, 15], [31, 1]])
    func decryptsInChunks(sizes: [Int]) throws {
        var chunks: [ArraySlice<UInt8>] = []
        var start = 0
        for size in sizes {
            chunks.append(Self.ciphertext[start..<start + size])
            start += size
        }
        #expect(String(decoding: try decrypt(chunks), as: UTF8.self) == "segment bytes: 32 of them, yes.")
    }

    @Test func wrongKeyIsBadPadding() {
        var key = Self.key
        key[0] ^= 1
        #expect(throws: SegmentDecryptionError.badPadding) { try decrypt([Self.ciphertext[...]], key: key) }
    }

    @Test func partialBlockAndEmptySegment() {
        #expect(throws: SegmentDecryptionError.partialBlock) { try decrypt([Self.ciphertext.prefix(20)]) }
        #expect(throws: SegmentDecryptionError.empty) { try decrypt([]) }
    }

    @Test func keyAndIVMustBe16Bytes() {
        #expect(SegmentDecryptor(key: Array(Self.key.prefix(15)), iv: Self.iv) == nil)
        #expect(SegmentDecryptor(key: Self.key, iv: []) == nil)
    }
}
