import CFFmpeg

/// Converts decoded audio to the output's sample format, rate and channel count with
/// libswresample; reconfigures itself when the stream's format changes mid-way.
final class AudioResampler {
    let output: AudioFormat
    private var resampler: OpaquePointer?
    private var inputKey: InputKey?
    private var outputLayout = AVChannelLayout()

    private struct InputKey: Equatable {
        var format: Int32
        var rate: Int32
        var channels: Int32
        var mask: UInt64
    }

    init(output: AudioFormat) {
        self.output = output
    }

    deinit {
        swr_free(&resampler)
        av_channel_layout_uninit(&outputLayout)
    }

    /// True when `frame` is already in the output format and can be passed on untouched.
    func isPassthrough(_ frame: UnsafeMutablePointer<AVFrame>) -> Bool {
        resampler == nil
            && AVSampleFormat(rawValue: frame.pointee.format) == output.avSampleFormat
            && Int(frame.pointee.sample_rate) == output.sampleRate
            && Int(frame.pointee.ch_layout.nb_channels) == output.channelCount
    }

    /// Seconds of input held inside the resampler, to move the output's pts back by.
    var delay: Double {
        guard let resampler, let key = inputKey, key.rate > 0 else { return 0 }
        return Double(swr_get_delay(resampler, Int64(key.rate))) / Double(key.rate)
    }

    /// Converts `source` into the empty frame `target`.
    func convert(_ source: UnsafeMutablePointer<AVFrame>, into target: Frame) throws(FFmpegError) {
        try configure(for: source)
        let capacity = swr_get_out_samples(resampler, source.pointee.nb_samples)
        target.avFrame.pointee.nb_samples = try run(input: source.pointee.extended_data, count: source.pointee.nb_samples,
                                                    capacity: capacity, into: target)
    }

    /// Takes out what the resampler still holds (at the end of a stream); false when it held nothing.
    func drain(into target: Frame) throws(FFmpegError) -> Bool {
        guard resampler != nil else { return false }
        let capacity = swr_get_out_samples(resampler, 0)
        guard capacity > 0 else { return false }
        let converted = try run(input: nil, count: 0, capacity: capacity, into: target)
        target.avFrame.pointee.nb_samples = converted
        return converted > 0
    }

    /// Drops buffered samples (after a seek).
    func reset() {
        swr_free(&resampler)
        inputKey = nil
    }

    private func run(input: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?, count: Int32, capacity: Int32,
                     into target: Frame) throws(FFmpegError) -> Int32 {
        let destination = target.avFrame
        let size = Int(capacity) * output.bytesPerFrame
        let data = target.ownedStorage(size: max(size, 1))
        destination.pointee.data.0 = data
        destination.pointee.extended_data = UnsafeMutableRawPointer(destination)
            .advanced(by: MemoryLayout<AVFrame>.offset(of: \AVFrame.data)!)
            .assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        destination.pointee.linesize.0 = Int32(size)
        destination.pointee.format = output.avSampleFormat.rawValue
        destination.pointee.sample_rate = Int32(output.sampleRate)
        var outputPlanes: UnsafeMutablePointer<UInt8>? = data
        let converted = withUnsafeMutablePointer(to: &outputPlanes) { planes in
            guard let input else { return swr_convert(resampler, planes, capacity, nil, 0) }
            return input.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: Int(AV_NUM_DATA_POINTERS)) { constInput in
                swr_convert(resampler, planes, capacity, constInput, count)
            }
        }
        guard converted >= 0 else { throw FFmpegError(converted) }
        return converted
    }

    private func configure(for frame: UnsafeMutablePointer<AVFrame>) throws(FFmpegError) {
        let key = InputKey(format: frame.pointee.format, rate: frame.pointee.sample_rate,
                           channels: frame.pointee.ch_layout.nb_channels,
                           mask: frame.pointee.ch_layout.order == AV_CHANNEL_ORDER_NATIVE ? frame.pointee.ch_layout.u.mask : 0)
        guard key != inputKey || resampler == nil else { return }
        swr_free(&resampler)
        var inputLayout = AVChannelLayout()
        defer { av_channel_layout_uninit(&inputLayout) }
        if frame.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC {
            av_channel_layout_default(&inputLayout, frame.pointee.ch_layout.nb_channels)
        } else {
            try FFmpegError.check(av_channel_layout_copy(&inputLayout, &frame.pointee.ch_layout))
        }
        av_channel_layout_uninit(&outputLayout)
        if Int(inputLayout.nb_channels) == output.channelCount {
            try FFmpegError.check(av_channel_layout_copy(&outputLayout, &inputLayout))
        } else {
            av_channel_layout_default(&outputLayout, Int32(output.channelCount))
        }
        var context: OpaquePointer?
        try FFmpegError.check(swr_alloc_set_opts2(&context, &outputLayout, output.avSampleFormat, Int32(output.sampleRate),
                                                        &inputLayout, AVSampleFormat(rawValue: frame.pointee.format),
                                                        frame.pointee.sample_rate, 0, nil))
        let result = swr_init(context)
        if result < 0 {
            swr_free(&context)
            throw FFmpegError(result)
        }
        resampler = context
        inputKey = key
    }
}
