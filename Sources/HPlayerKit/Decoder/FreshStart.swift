import CFFmpeg

/// Whether a packet starts the stream afresh: no picture from it on refers to one before it, so
/// a new decoder can take over there and give exactly the pictures the old one would have.
///
/// A key-flagged packet is not always such a point: an H.264 recovery point or an HEVC CRA
/// picture may be followed by pictures that refer back (open GOPs), which a new decoder would
/// drop. So for H.264 and HEVC it is an IDR (or, for HEVC, a BLA, whose leading pictures are
/// dropped either way); for VP8, VP9 and AV1 a key frame resets every reference. Other codecs
/// are never switched mid-stream.
enum FreshStart {
    /// - Parameter lengthSize: the byte count of each NAL unit's length prefix (MP4, Matroska),
    ///   or 0 where the packets carry start codes (MPEG-TS, raw streams).
    static func isFresh(_ bytes: UnsafeBufferPointer<UInt8>, isKeyFlagged: Bool, codec: AVCodecID, lengthSize: Int) -> Bool {
        guard isKeyFlagged else { return false }
        switch codec {
        case AV_CODEC_ID_H264:
            return containsNALUnit(bytes, lengthSize: lengthSize) { $0 & 0x1F == 5 }
        case AV_CODEC_ID_HEVC:
            return containsNALUnit(bytes, lengthSize: lengthSize) { (16...20).contains(($0 >> 1) & 0x3F) }
        case AV_CODEC_ID_VP8, AV_CODEC_ID_VP9, AV_CODEC_ID_AV1:
            return true
        default:
            return false
        }
    }

    /// The length prefix's size from an H.264 (avcC) or HEVC (hvcC) decoder configuration
    /// record; 0 where the extradata is in Annex B form or absent. Told apart as libavcodec's
    /// parsers do: avcC starts with its version, 1; hvcC with anything but a start code (some
    /// muxers wrote version 0).
    static func lengthSize(extradata: UnsafeBufferPointer<UInt8>, codec: AVCodecID) -> Int {
        switch codec {
        case AV_CODEC_ID_H264 where extradata.count > 4 && extradata[0] == 1:
            return Int(extradata[4] & 3) + 1
        case AV_CODEC_ID_HEVC where extradata.count > 21 && (extradata[0] != 0 || extradata[1] != 0 || extradata[2] > 1):
            return Int(extradata[21] & 3) + 1
        default:
            return 0
        }
    }

    /// Whether a NAL unit whose first (header) byte passes `matches` is in `bytes`.
    static func containsNALUnit(_ bytes: UnsafeBufferPointer<UInt8>, lengthSize: Int, matches: (UInt8) -> Bool) -> Bool {
        let count = bytes.count
        if lengthSize == 0 {
            var index = 0
            while index + 3 < count {
                if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
                    if matches(bytes[index + 3]) { return true }
                    index += 3
                } else {
                    index += 1
                }
            }
            return false
        }
        var offset = 0
        while offset + lengthSize < count {
            var length = 0
            for byte in bytes[offset..<offset + lengthSize] { length = length << 8 | Int(byte) }
            let start = offset + lengthSize
            guard length > 0, start + length <= count else { return false }
            if matches(bytes[start]) { return true }
            offset = start + length
        }
        return false
    }
}
