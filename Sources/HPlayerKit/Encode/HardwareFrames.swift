import CFFmpeg

/// A VAAPI device and a pool of GPU pictures for h264_vaapi, which takes no system-memory
/// pictures: each one is converted to NV12 and uploaded into a pooled GPU frame.
final class HardwareFrames {
    private var device: UnsafeMutablePointer<AVBufferRef>?
    private(set) var frames: UnsafeMutablePointer<AVBufferRef>?
    let softwareFormat = AV_PIX_FMT_NV12
    private let uploaded: UnsafeMutablePointer<AVFrame>

    init(vaapiWidth width: Int32, height: Int32, encoder: String) throws(MediaError) {
        guard let frame = av_frame_alloc() else { fatalError("av_frame_alloc: out of memory") }
        uploaded = frame
        let created = av_hwdevice_ctx_create(&device, AV_HWDEVICE_TYPE_VAAPI, nil, nil, 0)
        guard created >= 0, let device else {
            throw MediaError(input: encoder, reason: "no VAAPI device: \(FFmpegError(created))")
        }
        guard let frames = av_hwframe_ctx_alloc(device) else { throw MediaError(input: encoder, reason: "out of memory") }
        self.frames = frames
        frames.pointee.data.withMemoryRebound(to: AVHWFramesContext.self, capacity: 1) { context in
            context.pointee.format = AV_PIX_FMT_VAAPI
            context.pointee.sw_format = AV_PIX_FMT_NV12
            context.pointee.width = width
            context.pointee.height = height
            context.pointee.initial_pool_size = 20
        }
        let initialized = av_hwframe_ctx_init(frames)
        guard initialized >= 0 else {
            throw MediaError(input: encoder, reason: "cannot make VAAPI frames: \(FFmpegError(initialized))")
        }
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = uploaded
        av_frame_free(&frame)
        av_buffer_unref(&frames)
        av_buffer_unref(&device)
    }

    /// `picture` (NV12, the encoder's size) copied into a GPU frame from the pool, with its pts.
    func upload(_ picture: UnsafeMutablePointer<AVFrame>, encoder: String) throws(MediaError) -> UnsafeMutablePointer<AVFrame> {
        av_frame_unref(uploaded)
        var result = av_hwframe_get_buffer(frames, uploaded, 0)
        if result >= 0 { result = av_hwframe_transfer_data(uploaded, picture, 0) }
        guard result >= 0 else { throw MediaError(input: encoder, reason: "cannot upload the picture: \(FFmpegError(result))") }
        uploaded.pointee.pts = picture.pointee.pts
        return uploaded
    }
}
