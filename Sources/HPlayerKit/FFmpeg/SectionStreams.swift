import CFFmpeg

/// A stream as the container first opened it: what a later section's stream of the same kind
/// is mapped onto.
struct FirstStream {
    let mediaType: AVMediaType
    let timeBase: AVRational
    /// The codec configuration the decoder has last been given.
    var extradata: [UInt8]

    init(_ stream: UnsafeMutablePointer<AVStream>) {
        mediaType = stream.pointee.codecpar.pointee.codec_type
        timeBase = stream.pointee.time_base
        extradata = Self.extradata(of: stream)
    }

    static func extradata(of stream: UnsafeMutablePointer<AVStream>) -> [UInt8] {
        let parameters = stream.pointee.codecpar.pointee
        guard let bytes = parameters.extradata, parameters.extradata_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(parameters.extradata_size)))
    }
}

/// How the streams of a sectioned stream's later section (fMP4 after a seek or a variant change,
/// opened by a demuxer of its own) continue the streams first opened, which the tracks were made
/// for: the n-th stream of a kind continues the first section's n-th of that kind. Its packets
/// take the first stream's index and time base, and the first packet after a change of codec
/// configuration carries the new one, as side data the decoder takes (AV_PKT_DATA_NEW_EXTRADATA).
/// The read thread's.
struct SectionStreams {
    /// For each stream of the section open now, the index of the first stream it continues; -1: none.
    private var map: [Int32] = []
    /// The section's streams whose next packet carries a new codec configuration.
    private var configurationChanged: Set<Int> = []

    /// The discard setting of each first stream, from the streams of the section open now.
    func firstStreamDiscards(of streams: [UnsafeMutablePointer<AVStream>], count: Int) -> [AVDiscard] {
        var discards = [AVDiscard](repeating: AVDISCARD_DEFAULT, count: count)
        for (index, stream) in streams.enumerated() {
            let first = map.isEmpty ? index : Int(map[index])
            if first >= 0, first < count { discards[first] = stream.pointee.discard }
        }
        return discards
    }

    /// Maps a newly opened section's streams onto the first ones, and discards what the first
    /// ones discarded and what continues none of them. True when a codec configuration changed.
    mutating func continueFirstStreams(_ streams: [UnsafeMutablePointer<AVStream>], firstStreams: inout [FirstStream],
                                       discards: [AVDiscard]) -> Bool {
        var seen: [Int32: Int] = [:]
        configurationChanged = []
        map = streams.enumerated().map { index, stream in
            let type = stream.pointee.codecpar.pointee.codec_type
            let ordinal = seen[type.rawValue, default: 0]
            seen[type.rawValue] = ordinal + 1
            let ofType = firstStreams.indices.filter { firstStreams[$0].mediaType == type }
            guard ordinal < ofType.count else {
                stream.pointee.discard = AVDISCARD_ALL
                return -1
            }
            let first = ofType[ordinal]
            stream.pointee.discard = discards[first]
            let extradata = FirstStream.extradata(of: stream)
            if extradata != firstStreams[first].extradata {
                firstStreams[first].extradata = extradata
                configurationChanged.insert(index)
            }
            return Int32(first)
        }
        return !configurationChanged.isEmpty
    }

    /// Gives a packet of the section open now the first stream's index and time base; false for
    /// a stream that continues none.
    /// `offset`: seconds added to its timestamps (TimeSeekableByteSource.sectionTimeOffset).
    mutating func mapToFirstStreams(_ packet: UnsafeMutablePointer<AVPacket>, from context: UnsafeMutablePointer<AVFormatContext>,
                                    firstStreams: [FirstStream], offset: Double) -> Bool {
        let index = Int(packet.pointee.stream_index)
        guard index < map.count, map[index] >= 0, let stream = context.pointee.streams[index] else { return false }
        let first = Int(map[index])
        let timeBase = firstStreams[first].timeBase
        if av_cmp_q(stream.pointee.time_base, timeBase) != 0 {
            av_packet_rescale_ts(packet, stream.pointee.time_base, timeBase)
        }
        packet.pointee.stream_index = Int32(first)
        if offset != 0, timeBase.num > 0 {
            let ticks = Int64(saturating: offset * Double(timeBase.den) / Double(timeBase.num))
            if packet.pointee.pts != noTimestamp { packet.pointee.pts = packet.pointee.pts.addingReportingOverflow(ticks).partialValue }
            if packet.pointee.dts != noTimestamp { packet.pointee.dts = packet.pointee.dts.addingReportingOverflow(ticks).partialValue }
        }
        if configurationChanged.remove(index) != nil {
            let extradata = firstStreams[first].extradata
            if !extradata.isEmpty, let side = av_packet_new_side_data(packet, AV_PKT_DATA_NEW_EXTRADATA, extradata.count) {
                extradata.withUnsafeBufferPointer { side.update(from: $0.baseAddress!, count: extradata.count) }
            }
        }
        return true
    }

    /// The stream of the section open now that continues first stream `index`.
    func stream(continuing index: Int32, among streams: [UnsafeMutablePointer<AVStream>]) -> UnsafeMutablePointer<AVStream>? {
        guard !map.isEmpty else { return Int(index) < streams.count ? streams[Int(index)] : nil }
        return map.firstIndex(of: index).map { streams[$0] }
    }
}
