/// The 7-byte header ADTS puts before each raw AAC frame (ISO/IEC 13818-7 and 14496-3), as
/// FFmpeg's adts muxer writes it: no CRC, one raw data block, buffer fullness 0x7FF (variable
/// bit rate).
package struct ADTSHeader: Equatable, Sendable {
    /// The audio object type: 2 for AAC-LC. ADTS keeps two bits of it (the type minus one).
    package var objectType: Int
    package var sampleRate: Int
    package var channelCount: Int

    /// The sample rates ADTS can name, at their sampling-frequency index.
    package static let sampleRates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]
    package static let size = 7
    /// The largest frame a header's 13-bit length can hold, header included.
    package static let maximumFrameLength = (1 << 13) - 1

    /// Why ADTS cannot carry `objectType` at `sampleRate` with `channelCount` channels; nil when it can.
    package static func refusal(objectType: Int, sampleRate: Int, channelCount: Int) -> String? {
        if !(1...4).contains(objectType) {
            return "ADTS carries AAC Main, LC, SSR or LTP only (audio object type \(objectType))"
        }
        if !sampleRates.contains(sampleRate) {
            return "ADTS cannot express a sample rate of \(sampleRate) Hz"
        }
        // Channel configurations 1–7 are 1 to 6 channels and 8 (7.1); 0 would need a program
        // config element in the stream, which this writer does not make.
        if !(1...6).contains(channelCount) && channelCount != 8 {
            return "ADTS cannot express \(channelCount) channels"
        }
        return nil
    }

    package init(objectType: Int, sampleRate: Int, channelCount: Int) throws(ADTSError) {
        if let reason = Self.refusal(objectType: objectType, sampleRate: sampleRate, channelCount: channelCount) {
            throw ADTSError(reason: reason)
        }
        self.objectType = objectType
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    /// The header for a raw frame of `payloadLength` bytes.
    package func bytes(payloadLength: Int) throws(ADTSError) -> [UInt8] {
        let frameLength = payloadLength + Self.size
        guard payloadLength >= 0, frameLength <= Self.maximumFrameLength else {
            throw ADTSError(reason: "an AAC frame of \(payloadLength) bytes is too long for ADTS")
        }
        let profile = objectType - 1
        let frequencyIndex = Self.sampleRates.firstIndex(of: sampleRate)!
        let channelConfiguration = channelCount == 8 ? 7 : channelCount
        let bufferFullness = 0x7FF
        return [
            0xFF,
            // sync word's last 4 bits, ID 0 (MPEG-4), layer 00, protection absent 1
            0xF1,
            UInt8(profile << 6 | frequencyIndex << 2 | channelConfiguration >> 2),
            // channel configuration's last 2 bits, original/copy, home, copyright bits: all 0
            UInt8((channelConfiguration & 3) << 6 | frameLength >> 11),
            UInt8((frameLength >> 3) & 0xFF),
            UInt8((frameLength & 7) << 5 | bufferFullness >> 6),
            // fullness's last 6 bits, then number_of_raw_data_blocks_in_frame minus one: 0
            UInt8((bufferFullness & 0x3F) << 2),
        ]
    }
}

package struct ADTSError: Error, Equatable, Sendable {
    package var reason: String
}
