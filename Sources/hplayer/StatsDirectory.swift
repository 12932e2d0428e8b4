import Glibc
import HPlayerKit

/// `--stats-dir DIR`: what happened during playback, for tests and benchmarks to read.
/// - `DIR/events.tsv`: `at<TAB>event<TAB>detail`, for first-frame, buffering-start,
///   buffering-end, variant, seek, retry, error and end;
/// - `DIR/network.tsv`: a line per HTTP request, `started_at<TAB>url<TAB>range<TAB>status<TAB>bytes<TAB>seconds<TAB>outcome`.
///
/// Times are monotonic seconds from when the files were made. Each line is flushed as written,
/// so a player that is killed leaves complete lines.
final class StatsDirectory: Sendable {
    private let origin = MonotonicClock.now()
    private let files: Locked<(events: UnsafeMutablePointer<FILE>, network: UnsafeMutablePointer<FILE>)>

    init(path: String) throws(CommandLineFailure) {
        if mkdir(path, 0o755) != 0, errno != EEXIST {
            throw .usage(input: "--stats-dir", reason: "\(path): \(String(cString: strerror(errno)))")
        }
        guard let events = fopen(path + "/events.tsv", "w") else {
            throw .usage(input: "--stats-dir", reason: "\(path)/events.tsv: \(String(cString: strerror(errno)))")
        }
        guard let network = fopen(path + "/network.tsv", "w") else {
            let reason = String(cString: strerror(errno))
            fclose(events)
            throw .usage(input: "--stats-dir", reason: "\(path)/network.tsv: \(reason)")
        }
        fputs("at\tevent\tdetail\n", events)
        fputs("started_at\turl\trange\tstatus\tbytes\tseconds\toutcome\n", network)
        fflush(events)
        fflush(network)
        files = Locked((events, network))
    }

    deinit {
        files.withLock { files in
            fclose(files.events)
            fclose(files.network)
        }
    }

    /// The line for a player event, if it makes one.
    func note(_ event: PlayerEvent) {
        switch event {
        case .started(let position): write(event: "first-frame", detail: seconds(position))
        case .bufferingStarted: write(event: "buffering-start", detail: "")
        case .bufferingEnded: write(event: "buffering-end", detail: "")
        case .liveCatchUp(let speed): write(event: "live-speed", detail: cFormat("%.2f", speed))
        case .liveJump(let position): write(event: "live-jump", detail: cFormat("%.3f", position))
        case .seekDone(let position): write(event: "seek", detail: seconds(position))
        case .finished(let error?): write(event: "error", detail: "\(error.input): \(error.reason)")
        default: break
        }
    }

    /// The file ended: eof, error, quit or stop.
    func noteEnd(reason: String) {
        write(event: "end", detail: reason)
    }

    @Sendable func note(_ event: NetworkEvent) {
        switch event {
        case let .request(request):
            let line = [seconds(request.startedAt - origin), clean(request.url), request.range, "\(request.status)", "\(request.bytes)",
                        seconds(request.seconds), clean(request.outcome.description)].joined(separator: "\t")
            files.withLock { files in
                fputs(line + "\n", files.network)
                fflush(files.network)
            }
        case let .retry(url, reason, delay):
            write(event: "retry", detail: "\(url): \(reason)" + (delay > 0 ? "; again in \(seconds(delay)) s" : ""))
        case let .variant(bandwidth, width, height):
            write(event: "variant", detail: "\(bandwidth)" + (width.flatMap { w in height.map { " \(w)x\($0)" } } ?? ""))
        }
    }

    private func write(event: String, detail: String) {
        let line = "\(seconds(MonotonicClock.now() - origin))\t\(event)\t\(clean(detail))\n"
        files.withLock { files in
            fputs(line, files.events)
            fflush(files.events)
        }
    }

    private func seconds(_ value: Double) -> String { DecimalText.fixed(value, places: 3) }

    /// A field never holds a tab or a line break.
    private func clean(_ text: String) -> String {
        String(text.map { $0 == "\t" || $0.isNewline ? " " : $0 })
    }
}
