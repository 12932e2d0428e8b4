import CFFmpeg
import CHPlayerShim

/// FFmpeg's hwaccel decoding on a device of one API (VA-API, VDPAU, NVDEC): the picture is
/// decoded on the GPU and downloaded (av_hwframe_transfer_data) into system memory, NV12 or
/// P010 mostly, which the outputs take or the converter converts.
final class HardwareDecoder: Decoder {
    private let codec: CodecContext
    private var device: UnsafeMutablePointer<AVBufferRef>?
    /// Reused host buffers the pictures are downloaded into, page-locked on CUDA.
    private var downloads: OpaquePointer?  // freed to nil by hp_download_pool_free
    private let api: HardwareAPI
    private var saidHowDownloaded = false
    /// The GPU frame a picture is received into before its download.
    private let onDevice: UnsafeMutablePointer<AVFrame>
    private let devicePixelFormat: AVPixelFormat

    /// The decoder's threads when `--vd-lavc-threads` leaves it to us.
    static let defaultThreads = 1

    /// Throws, with the reason, when this FFmpeg cannot decode the stream's codec with `api`,
    /// when no device of that API opens, or when the decoder refuses the device.
    /// - Parameter threads: libavcodec's threads (0: `defaultThreads`), on slices only: frame
    ///   threads would hold pictures back in live mode, measured no faster on NVDEC, and would
    ///   run the hwaccel on threads whose libav* lines the one fallback line cannot hold back.
    init(stream: UnsafeMutablePointer<AVStream>, api: HardwareAPI, threads: Int = 0) throws(MediaError) {
        let codecID = stream.pointee.codecpar.pointee.codec_id
        let codecName = String(cString: avcodec_get_name(codecID))
        guard let decoder = avcodec_find_decoder(codecID) else {
            throw MediaError(input: codecName, reason: "no decoder for this codec")
        }
        guard let format = Self.devicePixelFormat(decoder, api.deviceType) else {
            throw MediaError(input: codecName, reason: "this FFmpeg has no \(api.rawValue) decoding for \(codecName)")
        }
        var created: UnsafeMutablePointer<AVBufferRef>?
        // libav*'s own lines on a missing device would add to the one line the caller says.
        hp_log_quiet(1)
        let result = av_hwdevice_ctx_create(&created, api.deviceType, nil, nil, 0)
        hp_log_quiet(0)
        guard result >= 0, let created else {
            throw MediaError(input: codecName, reason: "no \(api.rawValue) device (\(FFmpegError(result)))")
        }
        var frame = av_frame_alloc()
        guard frame != nil, let pool = hp_download_pool_new(created) else {
            av_frame_free(&frame)
            var unused: UnsafeMutablePointer<AVBufferRef>? = created
            av_buffer_unref(&unused)
            throw MediaError(input: codecName, reason: "out of memory")
        }
        device = created
        onDevice = frame!
        devicePixelFormat = format
        downloads = pool
        self.api = api
        do {
            codec = try CodecContext(stream: stream, threads: Int32(clamping: threads == 0 ? Self.defaultThreads : threads)) { context in
                context.pointee.thread_type = FF_THREAD_SLICE
                guard let reference = av_buffer_ref(created) else { return hp_averror(ENOMEM) }
                context.pointee.hw_device_ctx = reference
                context.pointee.opaque = UnsafeMutableRawPointer(bitPattern: Int(format.rawValue))
                context.pointee.get_format = { context, offered in
                    // The device's format when offered; else none, which fails the picture and
                    // lets the fallback decode it in software.
                    let wanted = context.flatMap { $0.pointee.opaque }.map { Int32(Int(bitPattern: $0)) } ?? -1
                    var candidate = offered
                    while let format = candidate?.pointee, format != AV_PIX_FMT_NONE {
                        if format.rawValue == wanted { return format }
                        candidate = candidate?.successor()
                    }
                    return AV_PIX_FMT_NONE
                }
                return 0
            }
        } catch {
            av_frame_free(&frame)
            hp_download_pool_free(&downloads)
            av_buffer_unref(&device)
            throw error
        }
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = onDevice
        av_frame_free(&frame)
        hp_download_pool_free(&downloads)
        av_buffer_unref(&device)
    }

    /// The pixel format the decoder gives on a device of `type`, when it has such a hwaccel.
    private static func devicePixelFormat(_ decoder: UnsafePointer<AVCodec>, _ type: AVHWDeviceType) -> AVPixelFormat? {
        var index: Int32 = 0
        while let config = avcodec_get_hw_config(decoder, index) {
            if config.pointee.methods & Int32(AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX) != 0, config.pointee.device_type == type {
                return config.pointee.pix_fmt
            }
            index += 1
        }
        return nil
    }

    /// What libavcodec said when the hardware last failed ("Hardware is lacking required
    /// capabilities"): its lines are held back, as the fallback says in one line what happened.
    private(set) var failureDetail: String?

    func send(_ packet: UnsafeMutablePointer<AVPacket>?) -> DecoderStatus {
        quietly { SoftwareDecoder.status(avcodec_send_packet(codec.context, packet)) }
    }

    func receive(into frame: UnsafeMutablePointer<AVFrame>) -> DecoderStatus {
        quietly { download(into: frame) }
    }

    /// Runs a call into libavcodec with its lines held back, keeping the first as the detail of a failure.
    private func quietly(_ call: () -> DecoderStatus) -> DecoderStatus {
        hp_log_quiet(1)
        let status = call()
        hp_log_quiet(0)
        guard case .failed = status else {
            _ = hp_log_quiet_take(nil, 0)  // forgotten: a picture decoded after all
            return status
        }
        var line = [CChar](repeating: 0, count: 256)
        if hp_log_quiet_take(&line, Int32(line.count)) > 0 {
            failureDetail = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return status
    }

    private func download(into frame: UnsafeMutablePointer<AVFrame>) -> DecoderStatus {
        let status = SoftwareDecoder.status(avcodec_receive_frame(codec.context, onDevice))
        guard status == .ok else { return status }
        defer { av_frame_unref(onDevice) }
        guard onDevice.pointee.format == devicePixelFormat.rawValue else {
            av_frame_move_ref(frame, onDevice)  // a picture the decoder gave in system memory
            return .ok
        }
        let result = hp_download_pool_transfer(downloads, frame, onDevice)
        if result >= 0, !saidHowDownloaded {
            saidHowDownloaded = true
            let memory = hp_download_pool_is_pinned(downloads) != 0 ? "page-locked" : "pageable"
            Log.track.info("\(api.rawValue): pictures downloaded into reused \(memory) buffers")
        }
        return result >= 0 ? .ok : .failed(FFmpegError(result))  // the pool leaves `frame` empty on failure
    }

    func flush() { avcodec_flush_buffers(codec.context) }

    var skipsNonReferenceFrames = false {
        didSet { codec.context.pointee.skip_frame = skipsNonReferenceFrames ? AVDISCARD_NONREF : AVDISCARD_DEFAULT }
    }

    var frameRate: Double? {
        let rate = codec.context.pointee.framerate
        return rate.num > 0 && rate.den > 0 ? Double(rate.num) / Double(rate.den) : nil
    }
}
