import CFFmpeg
import Glibc

/// A real-time push to a server: FLV over RTMP (`rtmp://HOST/APP/KEY`), MPEG-TS over SRT. A
/// connection that breaks is reopened a second later, a few times, each said in one warning;
/// what is encoded meanwhile is dropped (it is live), and after a reconnection the picture starts
/// again at a key frame. When the server stays away, the encode fails. Nothing here sleeps: the
/// outputs' lock, held over each write, is never held for longer than one connection attempt.
final class PushOutput: EncodeOutput {
    let path: String
    private let muxerName: String
    private var connection: Connection?
    private var encoders: (video: VideoEncoder?, audio: AudioEncoder?) = (nil, nil)
    /// Reconnections tried since the last packet that went out.
    private var failedReconnections = 0
    /// When to try the next reconnection (monotonic seconds).
    private var retryAt = 0.0
    /// Why the push gave up: every later write fails with it, without trying again.
    private var failure: MediaError?
    private var waitsForKeyFrame = false
    private var sentBytes = 0
    private let handedOver: UnsafeMutablePointer<AVPacket>
    /// Reconnections tried before the push fails.
    static let reconnections = 3
    /// How long a write may wait on the server, in microseconds.
    static let writeTimeout = 5_000_000

    /// One open connection: a muxer writing to the URL.
    private final class Connection {
        let context: UnsafeMutablePointer<AVFormatContext>
        var streams: [MediaKind: (index: Int32, encoderTimeBase: AVRational)] = [:]

        init(url: String, muxer: String, video: VideoEncoder?, audio: AudioEncoder?) throws(MediaError) {
            var allocated: UnsafeMutablePointer<AVFormatContext>?
            let made = avformat_alloc_output_context2(&allocated, nil, muxer, url)
            guard made >= 0, let allocated else { throw MediaError(input: url, reason: "no \(muxer) muxer: \(FFmpegError(made))") }
            context = allocated
            for (kind, encoder) in [(MediaKind.video, video?.context), (.audio, audio?.context)] {
                guard let encoder else { continue }
                guard let stream = avformat_new_stream(allocated, nil) else { throw MediaError(input: url, reason: "out of memory") }
                avcodec_parameters_from_context(stream.pointee.codecpar, encoder)
                stream.pointee.time_base = encoder.pointee.time_base
                streams[kind] = (stream.pointee.index, encoder.pointee.time_base)
            }
            var options: OpaquePointer?
            av_dict_set(&options, "rw_timeout", String(PushOutput.writeTimeout), 0)
            let opened = avio_open2(&allocated.pointee.pb, url, AVIO_FLAG_WRITE, nil, &options)
            av_dict_free(&options)
            guard opened >= 0 else { throw MediaError(input: url, reason: "cannot connect: \(FFmpegError(opened))") }
            let started = avformat_write_header(allocated, nil)
            guard started >= 0 else { throw MediaError(input: url, reason: "cannot start the stream: \(FFmpegError(started))") }
        }

        deinit {
            avio_closep(&context.pointee.pb)
            avformat_free_context(context)
        }

        func finish() -> Int32 {
            av_write_trailer(context)
        }
    }

    /// `url` is rtmp(s):// (FLV) or srt:// (MPEG-TS).
    init(url: String) throws(MediaError) {
        path = url
        if url.hasPrefix("rtmp://") || url.hasPrefix("rtmps://") {
            muxerName = "flv"
        } else if url.hasPrefix("srt://") {
            muxerName = "mpegts"
        } else {
            throw MediaError(input: url, reason: "--push takes an rtmp:// or srt:// URL")
        }
        guard let packet = av_packet_alloc() else { fatalError("av_packet_alloc: out of memory") }
        handedOver = packet
    }

    deinit {
        var owned: UnsafeMutablePointer<AVPacket>? = handedOver
        av_packet_free(&owned)
    }

    let kinds: Set<MediaKind> = [.video, .audio]
    /// FLV keeps the codec configuration in its header.
    var needsGlobalHeader: Bool { muxerName == "flv" }
    var bytesWritten: Int { sentBytes }

    func start(video: [VideoEncoder], audio: AudioEncoder?) throws(MediaError) {
        encoders = (video.first, audio)
        connection = try Connection(url: path, muxer: muxerName, video: video.first, audio: audio)
    }

    func write(_ packet: UnsafeMutablePointer<AVPacket>, kind: MediaKind, encoding: Int) throws(MediaError) {
        if let failure { throw failure }
        if connection == nil, MonotonicClock.now() >= retryAt { try reconnect() }
        guard let connection, let stream = connection.streams[kind] else { return }
        if waitsForKeyFrame, encoders.video != nil {
            guard kind == .video, packet.pointee.flags & AV_PKT_FLAG_KEY != 0 else { return }
            waitsForKeyFrame = false
        }
        guard av_packet_ref(handedOver, packet) >= 0 else { throw MediaError(input: path, reason: "out of memory") }
        handedOver.pointee.stream_index = stream.index
        av_packet_rescale_ts(handedOver, stream.encoderTimeBase, connection.context.pointee.streams[Int(stream.index)]!.pointee.time_base)
        let size = Int(handedOver.pointee.size)
        let written = av_interleaved_write_frame(connection.context, handedOver)
        if written < 0 {
            Log.encode.warning("\(path): the connection broke (\(FFmpegError(written))): reconnecting")
            self.connection = nil
            retryAt = MonotonicClock.now() + 1
            return
        }
        sentBytes += size
        failedReconnections = 0
    }

    /// One attempt to open the connection again; the last failed attempt fails the push.
    private func reconnect() throws(MediaError) {
        failedReconnections += 1
        do {
            connection = try Connection(url: path, muxer: muxerName, video: encoders.video, audio: encoders.audio)
            waitsForKeyFrame = true
        } catch {
            Log.encode.warning("\(path): \(error.reason) (try \(failedReconnections) of \(Self.reconnections))")
            guard failedReconnections < Self.reconnections else {
                let failure = MediaError(input: path, reason: "the server went away: \(Self.reconnections) reconnections failed")
                self.failure = failure
                throw failure
            }
            retryAt = MonotonicClock.now() + 1
        }
    }

    func finish() throws(MediaError) {
        guard let connection else { return }
        self.connection = nil
        let result = connection.finish()
        if result < 0 { throw MediaError(input: path, reason: "cannot end the stream: \(FFmpegError(result))") }
    }
}
