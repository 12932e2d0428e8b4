import CFFmpeg
import Glibc

/// One segment being written: under a temporary name until it is whole, then renamed into place,
/// so a player reading the folder (a live playlist) never sees half a segment. With a key, the
/// bytes are AES-128-CBC encrypted as they come (RFC 8216 §4.3.2.4: PKCS#7 padding, the IV the
/// media sequence number unless a playlist says otherwise).
final class SegmentFile {
    let path: String
    private let temporaryPath: String
    private var handle: UnsafeMutablePointer<FILE>?
    private var failure: Int32 = 0
    private let encryptor: SegmentEncryptor?
    /// Bytes written (after encryption).
    private(set) var size = 0
    /// CENC: the samples are encrypted, which rewrites boxes before them: the bytes are held
    /// until `close`.
    private let sampleEncryptor: CENCFragmentEncryptor?
    private var held: [UInt8] = []

    init(path: String, key: [UInt8]?, sequenceNumber: Int, sampleEncryptor: CENCFragmentEncryptor? = nil) throws(MediaError) {
        self.sampleEncryptor = sampleEncryptor
        self.path = path
        temporaryPath = path + ".part"
        guard let handle = fopen(temporaryPath, "wb") else {
            throw MediaError(input: path, reason: String(cString: strerror(errno)))
        }
        self.handle = handle
        encryptor = key.map { SegmentEncryptor(key: $0, iv: SegmentEncryptor.iv(sequenceNumber: sequenceNumber)) }
    }

    deinit {
        if let handle {
            fclose(handle)
            unlink(temporaryPath)
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) {
        if sampleEncryptor != nil {
            held += bytes
        } else if let encryptor {
            encryptor.encrypt(bytes) { store($0) }
        } else {
            store(bytes)
        }
    }

    private func store(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, let handle, !bytes.isEmpty else { return }
        if fwrite(base, 1, bytes.count, handle) != bytes.count, failure == 0 { failure = errno }
        size += bytes.count
    }

    /// Finishes the file (the last, padded block when encrypted) and gives it its name.
    func close() throws(MediaError) {
        guard let handle else { return }
        if let sampleEncryptor {
            do throws(CENCPackagingError) {
                let stored = try sampleEncryptor.encrypt(held)
                held = []
                stored.withUnsafeBytes { store($0) }
            } catch {
                fclose(handle)
                self.handle = nil
                unlink(temporaryPath)
                throw MediaError(input: path, reason: error.reason)
            }
        }
        encryptor?.finish { store($0) }
        self.handle = nil
        if fclose(handle) != 0, failure == 0 { failure = errno }
        if failure == 0, rename(temporaryPath, path) != 0 { failure = errno }
        if failure != 0 {
            unlink(temporaryPath)
            throw MediaError(input: path, reason: "cannot write: \(String(cString: strerror(failure)))")
        }
    }
}

/// AES-128-CBC encryption with PKCS#7 padding, block by block as bytes come, with libavutil's AES.
final class SegmentEncryptor {
    static let blockSize = 16
    private let aes: OpaquePointer
    private var iv: [UInt8]
    private var carry: [UInt8] = []
    private var output = [UInt8](repeating: 0, count: 4096)

    /// The IV a playlist without an IV attribute means: the sequence number, big-endian, in 16 bytes.
    static func iv(sequenceNumber: Int) -> [UInt8] {
        [UInt8](repeating: 0, count: 8) + (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(sequenceNumber) >> ($0 * 8)) }
    }

    /// `key` and `iv` are 16 bytes each (checked where the key is read).
    init(key: [UInt8], iv: [UInt8]) {
        guard let aes = av_aes_alloc() else { fatalError("av_aes_alloc: out of memory") }
        self.aes = aes
        self.iv = iv
        _ = key.withUnsafeBufferPointer { av_aes_init(aes, $0.baseAddress, 128, 0) }
    }

    deinit { av_free(UnsafeMutableRawPointer(aes)) }

    func encrypt(_ bytes: UnsafeRawBufferPointer, emit: (UnsafeRawBufferPointer) -> Void) {
        carry.append(contentsOf: bytes)
        let whole = carry.count / Self.blockSize * Self.blockSize
        var done = 0
        while done < whole {
            let count = min(whole - done, output.count)
            crypt(from: done, count: count, emit: emit)
            done += count
        }
        carry.removeFirst(whole)
    }

    /// The last block, padded (a whole block of padding when the data ended on a boundary).
    func finish(emit: (UnsafeRawBufferPointer) -> Void) {
        let padding = Self.blockSize - carry.count % Self.blockSize
        carry.append(contentsOf: repeatElement(UInt8(padding), count: padding))
        crypt(from: 0, count: carry.count, emit: emit)
        carry.removeAll()
    }

    private func crypt(from start: Int, count: Int, emit: (UnsafeRawBufferPointer) -> Void) {
        output.withUnsafeMutableBufferPointer { destination in
            carry.withUnsafeBufferPointer { source in
                iv.withUnsafeMutableBufferPointer { iv in
                    av_aes_crypt(aes, destination.baseAddress!, source.baseAddress! + start, Int32(count / Self.blockSize), iv.baseAddress, 0)
                }
            }
            emit(UnsafeRawBufferPointer(start: destination.baseAddress, count: count))
        }
    }
}
