import CFFmpeg

/// An owning wrapper around one AVPacket, reused through a pool: `reset` drops the payload
/// reference and keeps the struct.
final class Packet: @unchecked Sendable {
    enum Kind {
        case data
        /// No more packets for this serial: the decoder drains.
        case endOfStream
    }

    let avPacket: UnsafeMutablePointer<AVPacket>
    var kind = Kind.data
    /// The seek serial the packet was read under; a decoder drops packets of an older serial.
    var serial = 0
    /// Where on the playback timeline the packet lies: its shift (added to pts and dts) and
    /// the loop pass it belongs to.
    var segment = TimelineSegment()
    /// The payload bytes its track counts as queued; 0 when not counted.
    var countedBytes = 0

    init() {
        guard let packet = av_packet_alloc() else { fatalError("av_packet_alloc: out of memory") }
        avPacket = packet
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = avPacket
        av_packet_free(&packet)
    }

    func reset() {
        av_packet_unref(avPacket)
        kind = .data
        segment = TimelineSegment()
    }
}
