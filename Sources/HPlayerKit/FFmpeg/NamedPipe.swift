import CHPlayerShim
import Glibc

/// Named pipes (FIFOs) block in open(2) until their other end is there, where libavformat's
/// interrupt callback cannot reach: a quit while hplayer waited for a writer went unheard. So a
/// FIFO is opened here, without blocking, and waited on in steps that look at the abort flag.
enum NamedPipe {
    /// The local path `url` names when it is a named pipe; nil for anything else.
    static func path(of url: String) -> String? {
        var path = Substring(url)
        if path.hasPrefix("file:") {
            path = path.dropFirst("file:".count)
        } else if let colon = path.firstIndex(of: ":"), !path[..<colon].contains("/") {
            return nil  // a protocol: http:, pipe:, lavfi …
        }
        var status = stat()
        guard !path.isEmpty, stat(String(path), &status) == 0, status.st_mode & S_IFMT == S_IFIFO else { return nil }
        return String(path)
    }

    /// Opens a pipe for reading and waits until a writer has written to it (or come and gone);
    /// the descriptor stays non-blocking, so libavformat's reads of it (`pipe:FD`) wait in
    /// steps that its interrupt callback ends.
    static func openForReading(_ path: String, input: String, isAborted: () -> Bool) throws(MediaError) -> Int32 {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw MediaError(input: input, reason: String(cString: strerror(errno))) }
        var polled = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while polled.revents & Int16(POLLIN | POLLHUP) == 0 {
            if isAborted() {
                close(descriptor)
                throw MediaError(input: input, reason: FFmpegError(hp_averror_exit()).description)
            }
            polled.revents = 0
            _ = poll(&polled, 1, 100)
        }
        return descriptor
    }

    /// Opens a pipe for writing. One nobody reads would block at the open: refused at once
    /// instead. The descriptor stays non-blocking, so libavformat's writes to it (`pipe:FD`)
    /// wait for a reader that falls behind in steps that its interrupt callback and `rw_timeout` end.
    static func openForWriting(_ path: String) throws(MediaError) -> Int32 {
        let descriptor = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw MediaError(input: path, reason: errno == ENXIO ? "a named pipe with no reader" : String(cString: strerror(errno)))
        }
        return descriptor
    }
}

/// `-`: media read from standard input (`cat stream.h264 | hplayer -`).
package enum StandardInput {
    package static let url = "-"

    /// Standard input opened anew, non-blocking as a named pipe's, so libavformat's reads
    /// (`pipe:FD`) wait in steps that its interrupt callback ends. Opened through /proc rather
    /// than duplicated: a pipe or terminal then gets a file description of its own, and the
    /// non-blocking flag does not stay on the shell's standard input.
    static func openForReading() throws(MediaError) -> Int32 {
        let descriptor = open("/proc/self/fd/0", O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw MediaError(input: url, reason: String(cString: strerror(errno))) }
        return descriptor
    }
}
