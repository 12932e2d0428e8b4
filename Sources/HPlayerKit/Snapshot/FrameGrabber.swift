import CFFmpeg

/// Finds the picture of a video at a media time without playing it: seeks to the key frame
/// before the time and decodes up to it.
///
/// The picture is the first whose pts is at or after the time, the one
/// `ffmpeg -ss TIME -i URL -frames:v 1` extracts (its exact seek drops the frames before the
/// time). After the last frame and before the end of the media, it is the last frame, which is
/// what a player shows there.
final class FrameGrabber {
    let url: String
    let videoFormat: VideoFormat
    private let container: InputContainer
    private let stream: UnsafeMutablePointer<AVStream>
    private let decoder: SoftwareDecoder
    private let timeBase: TimeBase

    /// Opens `url` and the decoder of its video stream: track `videoTrack` (from 1) when given,
    /// the one the player would choose otherwise.
    init(url: String, videoTrack: Int? = nil, network: NetworkOptions = NetworkOptions()) throws(MediaError) {
        self.url = url
        container = InputContainer(url: url, network: network, opensRenditions: false)
        try container.open(fullAnalysis: false)
        let index = container.chosenStream(of: .video, number: videoTrack)
        guard index >= 0, let stream = container.context?.pointee.streams[Int(index)] else {
            throw MediaError(input: url, reason: "no video stream")
        }
        for other in container.streams where other != stream {
            other.pointee.discard = AVDISCARD_ALL
        }
        do {
            decoder = try SoftwareDecoder(stream: stream)
        } catch {
            throw MediaError(input: url, reason: "video stream \(index) (\(error.input)): \(error.reason)")
        }
        self.stream = stream
        timeBase = TimeBase(stream.pointee.time_base)
        videoFormat = VideoFormat(stream: stream)
    }

    /// The container's first timestamp in seconds: where positions count from.
    var startTime: Double { container.startTime }

    /// The container's duration in seconds, nil when unknown.
    var duration: Double? { container.duration }

    /// The picture shown at `time`, in media seconds (pts_time in ffprobe's words).
    func frame(atMediaTime time: Double) throws(MediaError) -> Frame {
        let target = timeBase.ticks(time)
        var seekPoint = time
        var stepBack = 1.0
        var isFirstSeek = true
        while true {
            // Before the first timestamp, a seek lands at the first key frame, or is refused and
            // made to the start itself.
            let isBeforeStart = seekPoint < startTime
            var seekResult = seek(to: seekPoint)
            if seekResult < 0, isBeforeStart { seekResult = seek(to: startTime) }
            // A stream that cannot seek is read from where it opened: the start.
            guard seekResult >= 0 || isFirstSeek else {
                throw MediaError(input: url, reason: "cannot seek: \(FFmpegError(seekResult))")
            }
            isFirstSeek = false
            decoder.flush()
            switch try decode(until: target, acceptsLaterStart: isBeforeStart || seekResult < 0) {
            case .found(let frame):
                return frame
            case .ended(let last):
                return try lastFrame(last, at: time)
            case .landedTooLate:
                // Containers without an index (MPEG-TS) can land after the key frame the time
                // needs: start further back.
                Log.snapshot.debug("\(url): the seek to \(seekPoint) s landed after \(time) s; seeking from \(stepBack) s before it")
                seekPoint = time - stepBack
                stepBack *= 2
            }
        }
    }

    private func seek(to seconds: Double) -> Int32 {
        container.seek(toMicroseconds: Int64(saturating: seconds * 1_000_000))
    }

    private enum Outcome {
        case found(Frame)
        /// The seek landed after the key frame the target needs: the first picture decoded is
        /// after the target, or none comes.
        case landedTooLate
        /// No picture at or after the target; the last one before it, if any.
        case ended(last: Frame?)
    }

    private func decode(until target: Int64, acceptsLaterStart: Bool) throws(MediaError) -> Outcome {
        let packet = Packet()
        var repair = TimestampRepair()
        var decoded = Frame()
        var last: Frame?
        while true {
            receiving: while true {
                switch decoder.receive(into: decoded.avFrame) {
                case .ok:
                    let pts = stamp(decoded, repair: &repair)
                    if last == nil, pts > target, !acceptsLaterStart { return .landedTooLate }
                    if pts >= target { return .found(decoded) }
                    last = decoded
                    decoded = Frame()
                case .needsIO:
                    break receiving
                case .endOfStream:
                    return last == nil && !acceptsLaterStart ? .landedTooLate : .ended(last: last)
                case .failed(let error):
                    Log.snapshot.warning("\(url): a picture could not be decoded: \(error)")
                    break receiving
                }
            }
            packet.reset()
            let result = container.read(into: packet.avPacket)
            if result == FFmpegError.tryAgain.code { continue }
            if result == FFmpegError.endOfFile.code {
                _ = decoder.send(nil)
                continue
            }
            guard result >= 0 else {
                throw MediaError(input: url, reason: "cannot read: \(FFmpegError(result))")
            }
            guard packet.avPacket.pointee.stream_index == stream.pointee.index else { continue }
            if case .failed(let error) = decoder.send(packet.avPacket) {
                Log.snapshot.warning("\(url): a packet could not be decoded: \(error)")
            }
        }
    }

    /// Gives `frame` its media pts, repaired where missing or out of order as the player's decode
    /// loop repairs it, and its duration; returns the pts in stream ticks.
    private func stamp(_ frame: Frame, repair: inout TimestampRepair) -> Int64 {
        let (pts, duration) = repair.stamp(frame.avFrame.pointee, kind: .video, timeBase: timeBase,
                                           nominalFrameDuration: 1 / Track.packetsPerSecond(kind: .video, stream: stream),
                                           startTicks: timeBase.ticks(startTime))
        frame.mediaPts = timeBase.seconds(pts) ?? 0
        frame.duration = duration
        return pts
    }

    /// What is shown at `time` when no picture starts at or after it: the last picture, until
    /// the end of the media.
    private func lastFrame(_ last: Frame?, at time: Double) throws(MediaError) -> Frame {
        let end = duration.map { startTime + $0 } ?? last.map { $0.mediaPts + $0.duration }
        if let end, time >= end {
            throw MediaError(input: url, reason: "nothing to show at \(TimeText.precise(time - startTime)): "
                             + "the video ends at \(TimeText.precise(end - startTime))")
        }
        guard let last else { throw MediaError(input: url, reason: "no picture could be decoded") }
        return last
    }
}
