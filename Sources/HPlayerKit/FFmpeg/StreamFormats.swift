import CFFmpeg

/// The engine's formats, as FFmpeg's structures give them.
extension VideoFormat {
    /// What `stream` declares: the container's pixel shape where it gives one, else the codec's.
    init(stream: UnsafeMutablePointer<AVStream>) {
        let parameters = stream.pointee.codecpar.pointee
        let aspect = stream.pointee.sample_aspect_ratio.num > 0 ? stream.pointee.sample_aspect_ratio : parameters.sample_aspect_ratio
        self.init(width: Int(parameters.width), height: Int(parameters.height),
                  sampleAspectRatio: aspect.num > 0 && aspect.den > 0 ? aspect.seconds : 1,
                  rotation: MediaProbe.rotation(of: stream))
    }
}

extension AudioFormat {
    var avSampleFormat: AVSampleFormat { sampleFormat == .int16 ? AV_SAMPLE_FMT_S16 : AV_SAMPLE_FMT_FLT }
}
