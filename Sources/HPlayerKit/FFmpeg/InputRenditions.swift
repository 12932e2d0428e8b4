import CFFmpeg
import CHPlayerShim

/// Which input to read next when renditions play alongside: the one read least far in time, so
/// that the packets of both come about in time order, as from one interleaved file. An input
/// whose streams are all discarded (no sound played) is not read at all. The read thread's.
struct RenditionReading: Equatable {
    /// Seconds the last packet of each input was stamped with (-infinity before the first).
    private(set) var times: [Double]
    private(set) var hasEnded: [Bool]

    init(inputs: Int) {
        times = Array(repeating: -.infinity, count: inputs)
        hasEnded = Array(repeating: false, count: inputs)
    }

    /// The input to read next; nil when every one wanted has ended.
    func next(isWanted: (Int) -> Bool) -> Int? {
        var chosen: Int?
        for input in times.indices where !hasEnded[input] && isWanted(input) {
            if chosen == nil || times[input] < times[chosen!] { chosen = input }
        }
        return chosen
    }

    /// A packet of `input` was read, stamped `seconds` (nil: unstamped, as the AAC frames after
    /// the first in a transport stream's packet: it follows the last one).
    mutating func read(_ input: Int, at seconds: Double?, lasting duration: Double) {
        if let seconds {
            times[input] = seconds
        } else if times[input] > -.infinity {
            times[input] += duration
        }
    }

    mutating func end(_ input: Int) { hasEnded[input] = true }
}

extension InputContainer {
    /// Opens the rendition at `renditionURL` alongside. One that cannot be opened leaves the
    /// variant playing without it, with a warning.
    func openRendition(_ renditionURL: String, fullAnalysis: Bool) {
        let stream = SegmentStream(url: renditionURL, options: network, following: segmentStream?.audioRenditionChoice,
                                   keyRing: segmentStream?.keyRing)
        let rendition = InputContainer(url: renditionURL, byteSource: stream, network: network)
        renditionLock.withLock { _ in renditions.append(rendition) }
        if isAborted { rendition.abort() }
        do {
            try rendition.open(fullAnalysis: fullAnalysis)
        } catch {
            Log.source.warning("\(error.input): \(error.reason); playing without the audio rendition")
            renditionLock.withLock { _ in renditions.removeAll { $0 === rendition } }
            rendition.close()
            return
        }
        renditionReading = RenditionReading(inputs: 1 + renditions.count)
    }

    /// The next packet of whichever input has been read least far, its stream index moved to
    /// that stream's place in `streams`. Nothing here allocates: it runs for every packet.
    func readInTimeOrder(into packet: UnsafeMutablePointer<AVPacket>) -> Int32 {
        // This container is always read (its end is the media's); a rendition while a stream of it plays.
        while let next = renditionReading.next(isWanted: { $0 == 0 || renditions[$0 - 1].isPlayed }) {
            let input = next == 0 ? self : renditions[next - 1]
            let result = next == 0 ? readOwn(into: packet) : input.read(into: packet)
            if result == hp_averror_eof() {
                renditionReading.end(next)
                continue
            }
            guard result >= 0 else { return result }
            if let stream = input.ownStream(Int(packet.pointee.stream_index)) {
                let timeBase = TimeBase(stream.pointee.time_base)
                let stamp = packet.pointee.dts != noTimestamp ? packet.pointee.dts : packet.pointee.pts
                renditionReading.read(next, at: timeBase.seconds(stamp), lasting: timeBase.seconds(packet.pointee.duration) ?? 0)
            }
            var offset = ownStreamCount
            for rendition in renditions[..<max(next - 1, 0)] { offset += rendition.ownStreamCount }
            if next > 0 { packet.pointee.stream_index += Int32(offset) }
            return result
        }
        return hp_averror_eof()
    }

    /// Whether a stream of this container is read (not discarded).
    private var isPlayed: Bool {
        (0..<ownStreamCount).contains { ownStream($0)?.pointee.discard != AVDISCARD_ALL }
    }

    /// Seeks this container and every rendition; the first failure is the result.
    func seekWithRenditions(toMicroseconds microseconds: Int64) -> Int32 {
        var result = seekOwn(toMicroseconds: microseconds)
        for rendition in renditions {
            let seeked = rendition.seek(toMicroseconds: microseconds)
            if result >= 0 { result = seeked }
        }
        renditionReading = RenditionReading(inputs: 1 + renditions.count)
        return result
    }
}
