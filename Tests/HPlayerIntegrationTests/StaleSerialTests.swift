import CFFmpeg
import Foundation
@testable import HPlayerKit
import HPlayerTestSupport
import Testing

/// libavcodec's decoder, noting the pts of each packet it is sent.
private final class SentPacketLog: Decoder {
    private let decoder: SoftwareDecoder
    /// Read only after the decode thread is joined.
    private(set) var sentPts: [Int64] = []

    init(_ decoder: SoftwareDecoder) { self.decoder = decoder }

    func send(_ packet: UnsafeMutablePointer<AVPacket>?) -> DecoderStatus {
        if let packet { sentPts.append(packet.pointee.pts) }
        return decoder.send(packet)
    }

    func receive(into frame: UnsafeMutablePointer<AVFrame>) -> DecoderStatus { decoder.receive(into: frame) }
    func flush() { decoder.flush() }
    var skipsNonReferenceFrames: Bool {
        get { decoder.skipsNonReferenceFrames }
        set { decoder.skipsNonReferenceFrames = newValue }
    }
    var frameRate: Double? { decoder.frameRate }
}

extension Playback {
    @Suite struct StaleSerials {
        @Test("A seek asked while the read thread is a packet behind: the packet it then queues under the old serial never reaches the decoder, which starts at the seek's key frame; the pictures are the clip's from there, exact",
              .timeLimit(.minutes(1)))
        func oldSerialNeverDecoded() throws {
            let clip = try Playback.DecoderThreads.clip("h264-mp4")
            let expected = try Fixtures.frameMD5s(clip)
            let container = InputContainer(url: clip)
            try container.open(fullAnalysis: true)
            defer { container.close() }
            let index = container.chosenStream(of: .video, number: nil)
            let stream = try #require(container.ownStream(Int(index)))
            let decoder = SentPacketLog(try SoftwareDecoder(stream: stream, threads: 1))
            let track = Track(kind: .video, stream: stream, index: index, decoder: decoder, startTime: 0,
                              packetCapacity: 128, frameCapacity: 128)
            track.configureVideo(acceptedPixelFormats: nil)
            var packets: [Packet] = []
            while true {
                let packet = track.packetPool.acquire()
                guard container.readOwn(into: packet.avPacket) >= 0 else {
                    track.recycle(packet)
                    break
                }
                if packet.avPacket.pointee.stream_index == index { packets.append(packet) } else { track.recycle(packet) }
            }
            let secondKey = try #require(packets.indices.dropFirst().first { packets[$0].avPacket.pointee.flags & AV_PKT_FLAG_KEY != 0 })
            #expect(secondKey == 15, "a key frame every 15 pictures, closed GOPs")
            // Read under serial 0; the seek (serial 1) asked after ten, before the eleventh.
            for packet in packets[..<10] { #expect(track.packets.push(packet) == .pushed) }
            track.discardQueued(before: 1)
            #expect(track.packets.push(packets[10]) == .pushed)
            for packet in packets[11..<secondKey] { track.recycle(packet) }
            for packet in packets[secondKey...] {
                packet.serial = 1
                #expect(track.packets.push(packet) == .pushed)
            }
            let end = track.packetPool.acquire()
            end.kind = .endOfStream
            end.serial = 1
            #expect(track.packets.push(end) == .pushed)
            let sentAfterSeek = packets[secondKey...].map { $0.avPacket.pointee.pts }
            track.startDecoding()
            #expect(eventually(timeout: 20) { track.decodingFinishedSerial == 1 })
            let md5 = FrameMD5()
            var digests: [String] = []
            var serials: Set<Int> = []
            while let frame = track.popFrame(blocking: false) {
                digests.append(md5.digest(of: frame))
                serials.insert(frame.serial)
                track.recycle(frame)
            }
            track.close()
            #expect(decoder.sentPts == sentAfterSeek)
            #expect(serials == [1])
            #expect(digests == Array(expected[secondKey...]))
        }
    }
}
