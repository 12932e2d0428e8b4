import CFFmpeg

/// What HPlayer plays on, for `--version`.
package enum MediaLibraries {
    /// FFmpeg's own version string, as the libraries linked say it ("5.1.6-0+deb12u1").
    package static var ffmpegVersion: String { String(cString: av_version_info()) }
}
