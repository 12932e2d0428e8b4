import CFFmpeg

/// A played stream as a recording copies it. `stream` is read on the read thread only, when the
/// recording sets up its file (nil: the container's stream for it has gone, after an fMP4
/// section with fewer streams); the packets come in the track's time base.
struct RecordedStream {
    let stream: UnsafeMutablePointer<AVStream>?
    let kind: MediaKind
    let timeBase: TimeBase

    init(stream: UnsafeMutablePointer<AVStream>?, track: Track) {
        self.stream = stream
        kind = track.kind
        timeBase = track.timeBase
    }
}

/// Writes the packets of the played streams to a file as the read loop reads them: a remux, no
/// decoding. `record` comes on the read thread, the rest from any thread, under one lock held
/// for a packet's write (the held packets' once, when playback starts; the trailer at the end).
///
/// The recording starts at a video key frame (audio alone: at its first packet), so the file
/// starts with a picture it can decode; one shift moves every stream's timestamps so that frame
/// is at 0, keeping picture and sound in sync. The recording is what was read, in order: after a
/// seek it goes on at the next key frame, placed where the recording ends, so its timestamps
/// only go forward; loop passes and jumps in the timestamps come already made continuous by the
/// read loop's timeline. A write error (a full disk) stops it with one logged error, and the file
/// is closed (OutputContainer writes files that play up to where they were cut).
final class StreamRecorder: @unchecked Sendable {
    private enum Phase {
        /// Keeping the packets read since the last seek until playback starts (`beginHeld`):
        /// a recording asked for before playback starts begins where playback does.
        case holding
        /// Dropping packets until a key frame of the key stream starts a run.
        case waitingForKeyFrame
        case recording
        case finished
    }

    private struct Output {
        let index: Int32
        let isVideo: Bool
        let inputTimeBase: TimeBase
        let timeBase: TimeBase
        /// The last dts handed to the muxer, in `timeBase`: the muxers take only increasing ones.
        var lastDts: Int64?
    }

    private struct HeldPacket {
        let packet: UnsafeMutablePointer<AVPacket>
        let stream: Int
        let offset: Int64
    }

    let path: String
    private let lock = ConditionLock()
    private let output: OutputContainer
    private var phase: Phase
    /// One per recorded stream, in the order of the read loop's tracks; empty until the first
    /// packet sets the file up.
    private var outputs: [Output] = []
    /// The stream whose key frames start a run: the video, or the first stream when there is none.
    private var keyStream = 0
    private var serial: Int?
    private var held: [HeldPacket] = []
    /// Where the current run starts on the timeline, and how far it is moved back to follow on
    /// from the recording so far; both in the key stream's ticks.
    private var runStart: Int64 = 0
    private var shift: Int64 = 0
    /// Where the recording so far ends, in the key stream's ticks.
    private var end: Int64 = 0
    private let scratch: UnsafeMutablePointer<AVPacket>

    /// Creates the file (the muxer from its extension); the streams and header come with the
    /// first packet.
    init(path: String, waitsForPlayback: Bool) throws(MediaError) {
        output = try OutputContainer(path: path)
        self.path = path
        phase = waitsForPlayback ? .holding : .waitingForKeyFrame
        guard let packet = av_packet_alloc() else { fatalError("av_packet_alloc: out of memory") }
        scratch = packet
    }

    deinit {
        finish()
        var packet: UnsafeMutablePointer<AVPacket>? = scratch
        av_packet_free(&packet)
    }

    /// False once stopped, by `finish` or by an error.
    var isRecording: Bool { lock.withLock { phase != .finished } }

    /// Takes a packet read for `streams[stream]` under seek `serial`, whose place on the timeline
    /// is `offset` ticks after its own timestamps. The packet is left as it is: the muxer gets a
    /// new reference to its data.
    func record(_ packet: UnsafeMutablePointer<AVPacket>, stream: Int, serial: Int, offset: Int64, streams: [RecordedStream]) {
        lock.withLock {
            guard phase != .finished, !outputs.isEmpty || setUp(streams) else { return }
            if serial != self.serial {
                self.serial = serial
                dropHeld()
                if phase == .recording { phase = .waitingForKeyFrame }
            }
            if phase == .holding {
                guard let copy = av_packet_clone(packet) else { return stop(failure: "out of memory") }
                held.append(HeldPacket(packet: copy, stream: stream, offset: offset))
            } else {
                write(packet, stream: stream, offset: offset)
            }
        }
    }

    /// Playback has started: a recording holding its packets begins with them.
    func beginHeld() {
        lock.withLock {
            guard phase == .holding else { return }
            phase = .waitingForKeyFrame
            let packets = held
            held = []
            for item in packets {
                if phase != .finished { write(item.packet, stream: item.stream, offset: item.offset) }
                var packet: UnsafeMutablePointer<AVPacket>? = item.packet
                av_packet_free(&packet)
            }
        }
    }

    /// Stops: writes the trailer and closes the file. Packets still held are dropped (playback
    /// never started). A named pipe's writes are ended within half a second first, so that the
    /// stop does not wait on a reader that stopped reading: what it has not taken by then is not
    /// recorded.
    func finish() {
        output.interrupt()
        lock.withLock { close(failure: nil) }
    }

    // MARK: Under the lock

    /// Adds the streams and writes the header; false, with the recording stopped, if the muxer
    /// refuses them.
    private func setUp(_ streams: [RecordedStream]) -> Bool {
        do throws(MediaError) {
            var indices: [Int32] = []
            for recorded in streams {
                guard let stream = recorded.stream else { throw MediaError(input: path, reason: "the \(recorded.kind) stream has gone") }
                indices.append(try output.addStream(copying: stream))
            }
            try output.writeHeader()
            outputs = zip(streams, indices).map { recorded, index in
                Output(index: index, isVideo: recorded.kind == .video, inputTimeBase: recorded.timeBase,
                       timeBase: output.timeBase(ofStream: index))
            }
            keyStream = outputs.firstIndex(where: \.isVideo) ?? 0
            return true
        } catch {
            stop(failure: error.reason)
            return false
        }
    }

    private func write(_ packet: UnsafeMutablePointer<AVPacket>, stream: Int, offset: Int64) {
        let key = outputs[keyStream].inputTimeBase
        let input = outputs[stream].inputTimeBase
        let start = packet.pointee.pts != noTimestamp ? packet.pointee.pts : packet.pointee.dts
        guard start != noTimestamp else { return }  // nowhere to place it
        if phase == .waitingForKeyFrame {
            guard stream == keyStream, !outputs[stream].isVideo || packet.pointee.flags & AV_PKT_FLAG_KEY != 0 else { return }
            runStart = start + offset
            shift = runStart - end
            phase = .recording
        }
        // Read after the run's key frame but starting before it: sound from before the picture,
        // or pictures that need the frames before the key frame.
        guard start + offset >= av_rescale_q(runStart, key.rational, input.rational) else { return }
        guard av_packet_ref(scratch, packet) >= 0 else { return stop(failure: "out of memory") }
        let moveBy = offset - av_rescale_q(shift, key.rational, input.rational)
        if scratch.pointee.pts != noTimestamp { scratch.pointee.pts += moveBy }
        if scratch.pointee.dts != noTimestamp { scratch.pointee.dts += moveBy }
        end = max(end, av_rescale_q(start + moveBy + max(scratch.pointee.duration, 0), input.rational, key.rational))
        scratch.pointee.stream_index = outputs[stream].index
        scratch.pointee.pos = -1
        av_packet_rescale_ts(scratch, input.rational, outputs[stream].timeBase.rational)
        keepDtsIncreasing(stream: stream)
        do { try output.write(scratch) } catch { stop(failure: error.reason) }
    }

    /// After a seek, the new run's first dts can come out at or before the last one written
    /// (the picture's reordering delay against where the recording ends): it is moved just after.
    private func keepDtsIncreasing(stream: Int) {
        guard scratch.pointee.dts != noTimestamp else { return }
        if let last = outputs[stream].lastDts, scratch.pointee.dts <= last {
            scratch.pointee.dts = last + 1
            if scratch.pointee.pts != noTimestamp { scratch.pointee.pts = max(scratch.pointee.pts, scratch.pointee.dts) }
        }
        outputs[stream].lastDts = scratch.pointee.dts
    }

    private func stop(failure: String) {
        Log.source.error("\(path): recording stopped: \(failure)")
        close(failure: failure)
    }

    /// Closes the file; its own errors are logged unless the recording already stopped on one.
    private func close(failure: String?) {
        guard phase != .finished else { return }
        phase = .finished
        dropHeld()
        do {
            try output.close()
        } catch {
            if failure == nil { Log.source.error("\(error)") }
        }
    }

    private func dropHeld() {
        for item in held {
            var packet: UnsafeMutablePointer<AVPacket>? = item.packet
            av_packet_free(&packet)
        }
        held = []
    }
}
