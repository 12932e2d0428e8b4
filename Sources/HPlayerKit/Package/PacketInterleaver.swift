import CFFmpeg

/// Puts the packets of a picture and a sound stream, each arriving in its own order, into one
/// order by decode time, as a muxer must take them: a packet goes out once every stream still
/// running has one queued. Packets are references held in a pool of AVPackets, reused.
struct PacketInterleaver {
    private struct Queued {
        var packet: UnsafeMutablePointer<AVPacket>
        var dts: Double
    }

    private var queues: [MediaKind: [Queued]] = [:]
    private var running: Set<MediaKind>
    private var free: [UnsafeMutablePointer<AVPacket>] = []

    init(kinds: [MediaKind]) {
        running = Set(kinds)
        for kind in kinds { queues[kind] = [] }
    }

    /// Frees every packet it holds; its owner calls it once, on close.
    mutating func release() {
        for packet in free + queues.values.flatMap({ $0.map(\.packet) }) {
            var owned: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&owned)
        }
        free = []
        queues = [:]
    }

    mutating func push(_ packet: UnsafeMutablePointer<AVPacket>, kind: MediaKind, timeBase: AVRational) {
        guard queues[kind] != nil else { return }
        let held = free.popLast() ?? av_packet_alloc()!
        av_packet_ref(held, packet)
        let dts = packet.pointee.dts == noTimestamp ? packet.pointee.pts : packet.pointee.dts
        queues[kind]!.append(Queued(packet: held, dts: Double(dts) * timeBase.seconds))
    }

    mutating func end(_ kind: MediaKind) { running.remove(kind) }

    /// The next packet to mux, if it can go now; give it back with `recycle` once written.
    mutating func pop() -> (UnsafeMutablePointer<AVPacket>, MediaKind)? {
        // A running stream with nothing queued may yet send something earlier.
        if running.contains(where: { queues[$0]!.isEmpty }) { return nil }
        var best: (kind: MediaKind, dts: Double)?
        for kind in [MediaKind.video, .audio] {
            guard let first = queues[kind]?.first else { continue }
            if best == nil || first.dts < best!.dts { best = (kind, first.dts) }
        }
        guard let best else { return nil }
        return (queues[best.kind]!.removeFirst().packet, best.kind)
    }

    mutating func recycle(_ packet: UnsafeMutablePointer<AVPacket>) {
        av_packet_unref(packet)
        free.append(packet)
    }
}
