import CFFmpeg

/// AES-128-CBC decryption of one segment as its bytes arrive (RFC 8216 §4.3.2.4), with
/// libavutil's AES: whole blocks are decrypted as they come, and the last one is held back until
/// the segment ends, when its PKCS#7 padding is taken off.
final class SegmentDecryptor {
    static let blockSize = 16
    private let aes: OpaquePointer
    private var iv: [UInt8]
    /// Ciphertext not yet decrypted: less than a block, or the block held back.
    private var carry: [UInt8] = []

    /// `key` and `iv` are 16 bytes each.
    init?(key: [UInt8], iv: [UInt8]) {
        guard key.count == Self.blockSize, iv.count == Self.blockSize, let aes = av_aes_alloc() else { return nil }
        self.aes = aes
        self.iv = iv
        guard key.withUnsafeBufferPointer({ av_aes_init(aes, $0.baseAddress, 128, 1) }) == 0 else {
            av_free(UnsafeMutableRawPointer(aes))
            return nil
        }
    }

    deinit { av_free(UnsafeMutableRawPointer(aes)) }

    /// Decrypts what it can of `ciphertext` (with what was carried), appending the plaintext to `output`.
    func decrypt(_ ciphertext: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        carry.append(contentsOf: ciphertext)
        // Keep one whole block back: it may be the last, with padding to take off.
        let blocks = (carry.count - 1) / Self.blockSize
        guard blocks > 0 else { return }
        decryptBlocks(blocks, into: &output)
    }

    /// The segment has ended: the held block, its padding taken off. Throws the reason when the
    /// ciphertext is not whole blocks or the padding is wrong (a wrong key, as a rule).
    func finish(into output: inout [UInt8]) throws(SegmentDecryptionError) {
        guard carry.count == Self.blockSize else {
            throw carry.isEmpty ? .empty : .partialBlock
        }
        var last: [UInt8] = []
        decryptBlocks(1, into: &last)
        guard let padding = last.last.map(Int.init), (1...Self.blockSize).contains(padding),
              last.suffix(padding).allSatisfy({ Int($0) == padding }) else { throw .badPadding }
        output.append(contentsOf: last.dropLast(padding))
    }

    private func decryptBlocks(_ count: Int, into output: inout [UInt8]) {
        let byteCount = count * Self.blockSize
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: byteCount))
        output.withUnsafeMutableBufferPointer { destination in
            carry.withUnsafeBufferPointer { source in
                iv.withUnsafeMutableBufferPointer { iv in
                    av_aes_crypt(aes, destination.baseAddress! + start, source.baseAddress!, Int32(count), iv.baseAddress, 1)
                }
            }
        }
        carry.removeFirst(byteCount)
    }
}

enum SegmentDecryptionError: Error, CustomStringConvertible {
    case empty, partialBlock, badPadding

    var description: String {
        switch self {
        case .empty: "an encrypted segment with no data"
        case .partialBlock: "an encrypted segment that is not whole 16-byte blocks"
        case .badPadding: "decryption failed (wrong key?): bad padding"
        }
    }
}
