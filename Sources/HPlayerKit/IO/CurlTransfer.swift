import CCurl
import CCurlShim

/// One libcurl easy handle on a multi handle of its own, driven by the thread that reads:
/// libcurl brings keep-alive (the handle is reused, so is its connection), HTTP/2, TLS with the
/// system's CA store and proxies from the environment. Its callbacks fill `receiver`.
/// It speaks http and https alone. Redirects are followed here, not by libcurl, so that each
/// hop is checked (OriginPolicy: no other protocol, no https to http unless allowed) and the
/// user's header fields and referrer go only to the server asked, unless the options say
/// otherwise (libcurl holds back its own Authorization and Cookie, but not custom fields).
/// Everything but `wake` is for the reading thread.
final class CurlTransfer: @unchecked Sendable {
    private static let globalInit: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    let receiver = TransferReceiver()
    private let multi: UnsafeMutableRawPointer
    private let easy: UnsafeMutableRawPointer
    private let headerFields: [String]
    private let referrer: String?
    private let allowsInsecureRedirect: Bool
    private let forwardsCredentials: Bool
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// The fields sent now when they are not `headerList`'s: one request's own added (a
    /// conditional request's), or the user's left out (a redirect to another server).
    private var requestHeaderList: UnsafeMutablePointer<curl_slist>?
    /// What the handle sends now: the request's own fields, and whether the user's go too.
    private var sentFields: (extra: [String], credentials: Bool) = ([], true)
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
    private var isActive = false
    private let monitor: NetworkMonitor?
    /// The resource asked for, and where the request in flight is now (a redirect's target).
    private var requestedURL: String
    private var url: String
    /// Redirects followed by the request in flight, and the range it asks for.
    private var redirects = 0
    private var requestRange = ""
    /// The request in flight, as the monitor is told of it when it ends.
    private var request: NetworkRequest?
    /// `receiver.arrived` when the monitor was last told of bytes.
    private var reportedArrived: Int64 = 0

    enum Progress: Equatable {
        case receiving
        /// The body has ended, as the server meant or not (a closed connection can look the same).
        case completed
        case failed(TransferFailure, reason: String)
    }

    init(url: String, options: NetworkOptions) throws(MediaError) {
        _ = Self.globalInit
        guard let multi = curl_multi_init() else { throw MediaError(input: url, reason: "cannot start libcurl") }
        guard let easy = curl_easy_init() else {
            curl_multi_cleanup(multi)
            throw MediaError(input: url, reason: "cannot start libcurl")
        }
        self.multi = multi
        self.easy = easy
        self.url = url
        requestedURL = url
        monitor = options.monitor
        headerFields = options.headerFields
        referrer = options.referrer
        allowsInsecureRedirect = options.allowsInsecureRedirect
        forwardsCredentials = options.forwardsCredentials
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        configure(url: url, options: options)
    }

    deinit {
        stop()
        curl_easy_cleanup(easy)
        curl_multi_cleanup(multi)
        curl_slist_free_all(headerList)
        curl_slist_free_all(requestHeaderList)
        errorBuffer.deallocate()
    }

    private func configure(url: String, options: NetworkOptions) {
        _ = hp_curl_set_string(easy, CURLOPT_URL, url)
        _ = hp_curl_set_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = hp_curl_set_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = hp_curl_set_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        _ = hp_curl_set_long(easy, CURLOPT_FOLLOWLOCATION, 0)  // followed in `follow`, hop by hop
        _ = hp_curl_set_long(easy, CURLOPT_FAILONERROR, 1)  // a 4xx or 5xx is an error, its body unread
        _ = hp_curl_set_long(easy, CURLOPT_TCP_KEEPALIVE, 1)
        _ = hp_curl_set_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(options.timeout * 1000))
        _ = hp_curl_set_string(easy, CURLOPT_USERAGENT, options.userAgent)
        if let referrer { _ = hp_curl_set_string(easy, CURLOPT_REFERER, referrer) }
        for field in options.headerFields { headerList = curl_slist_append(headerList, field) }
        if let headerList { _ = hp_curl_set_pointer(easy, CURLOPT_HTTPHEADER, headerList) }
        if !options.verifiesTLS {
            _ = hp_curl_set_long(easy, CURLOPT_SSL_VERIFYPEER, 0)
            _ = hp_curl_set_long(easy, CURLOPT_SSL_VERIFYHOST, 0)
        }
        if let caFile = options.caFile { _ = hp_curl_set_string(easy, CURLOPT_CAINFO, caFile) }
        _ = hp_curl_set_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        let context = Unmanaged.passUnretained(receiver).toOpaque()
        _ = hp_curl_set_callback(easy, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            let receiver = Unmanaged<TransferReceiver>.fromOpaque(context!).takeUnretainedValue()
            receiver.receive(UnsafeRawBufferPointer(start: data, count: size * count))
            return size * count
        }
        _ = hp_curl_set_pointer(easy, CURLOPT_WRITEDATA, context)
        _ = hp_curl_set_callback(easy, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            let receiver = Unmanaged<TransferReceiver>.fromOpaque(context!).takeUnretainedValue()
            // Returning less than was given ends the transfer: a head past the limit is not kept.
            let kept = receiver.addHeader(String(decoding: UnsafeRawBufferPointer(start: data, count: size * count), as: UTF8.self),
                                          byteCount: size * count)
            return kept ? size * count : 0
        }
        _ = hp_curl_set_pointer(easy, CURLOPT_HEADERDATA, context)
    }

    /// Points the handle at another resource; its connection is kept for it when the host is the same.
    func retarget(url: String) {
        stop()
        requestedURL = url
        self.url = url
        _ = hp_curl_set_string(easy, CURLOPT_URL, url)
    }

    /// Asks for the resource from byte `position` on, up to (not including) `end` when given,
    /// with `extraFields` added to this request's header.
    func start(at position: Int64, end: Int64? = nil, extraFields: [String] = []) {
        stop()
        // Each request starts at the resource asked for, its redirects followed anew.
        if url != requestedURL {
            url = requestedURL
            _ = hp_curl_set_string(easy, CURLOPT_URL, url)
        }
        redirects = 0
        setRequestFields(extraFields, credentials: true)
        errorBuffer[0] = 0
        receiver.begin(at: position)
        reportedArrived = 0
        let range = end.map { "\(position)-\($0 - 1)" } ?? (position > 0 ? "\(position)-" : "")
        requestRange = range
        _ = hp_curl_set_string(easy, CURLOPT_RANGE, range.isEmpty ? nil : range)
        curl_multi_add_handle(multi, easy)
        isActive = true
        if monitor != nil {
            request = NetworkRequest(startedAt: MonotonicClock.now(), url: url, range: range, status: 0, bytes: 0, seconds: 0,
                                     outcome: .stopped)
        }
    }

    /// The resource asked for (before any redirect).
    var requested: String { requestedURL }

    /// The requests from now on are HEADs: the answer's head alone (a clock's Date).
    func setHeadOnly() {
        _ = hp_curl_set_long(easy, CURLOPT_NOBODY, 1)
    }

    /// The requests from now on are POSTs of `body` (a license request), rather than GETs.
    func setRequestBody(_ body: [UInt8]) {
        _ = hp_curl_set_long(easy, CURLOPT_POSTFIELDSIZE, body.count)
        // libcurl copies the bytes at once: they need not outlive this call.
        body.withUnsafeBytes { _ = hp_curl_set_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress)) }
    }

    /// The handle sends `extra`, with the options' header fields and referrer when `credentials`;
    /// no transfer is active.
    private func setRequestFields(_ extra: [String], credentials: Bool) {
        guard sentFields.extra != extra || sentFields.credentials != credentials else { return }
        sentFields = (extra, credentials)
        let previous = requestHeaderList
        requestHeaderList = nil
        if !credentials || !extra.isEmpty {
            for field in (credentials ? headerFields : []) + extra { requestHeaderList = curl_slist_append(requestHeaderList, field) }
        }
        _ = hp_curl_set_pointer(easy, CURLOPT_HTTPHEADER, credentials && extra.isEmpty ? headerList : requestHeaderList)
        curl_slist_free_all(previous)
        if referrer != nil { _ = hp_curl_set_string(easy, CURLOPT_REFERER, credentials ? referrer : nil) }
    }

    /// Ends the transfer in flight, if any; a connection cut mid-body is not reused.
    func stop() {
        guard isActive else { return }
        curl_multi_remove_handle(multi, easy)
        isActive = false
        finishRequest(.stopped)
    }

    /// Tells the monitor of the bytes arrived since it last heard, and of a request that ended.
    private func finishRequest(_ outcome: NetworkRequest.Outcome?) {
        guard let monitor else { return }
        let arrived = receiver.arrived
        if arrived > reportedArrived {
            monitor.received(arrived - reportedArrived)
            reportedArrived = arrived
        }
        guard let outcome, var request else { return }
        self.request = nil
        request.status = Int(hp_curl_response_code(easy))
        request.bytes = arrived
        request.seconds = MonotonicClock.now() - request.startedAt
        request.outcome = outcome
        monitor.note(.request(request))
    }

    /// Lets libcurl move the transfer on, waiting up to `seconds` for the network when it has
    /// nothing to do at once.
    func pump(waitingUpTo seconds: Double) -> Progress {
        var running: Int32 = 0
        curl_multi_perform(multi, &running)
        if let result = finishedResult() { return finished(result) }
        guard receiver.pendingCount == 0 else {
            finishRequest(nil)
            return .receiving
        }
        curl_multi_poll(multi, nil, 0, Int32(seconds * 1000), nil)
        curl_multi_perform(multi, &running)
        if let result = finishedResult() { return finished(result) }
        finishRequest(nil)
        return .receiving
    }

    private func finished(_ result: CURLcode) -> Progress {
        if result == CURLE_OK, let target = redirectTarget() { return follow(target) }
        let progress = outcome(of: result)
        if case .failed(_, let reason) = progress { finishRequest(.failed(reason)) } else { finishRequest(.completed) }
        return progress
    }

    /// Where the answer just ended redirects to; nil when it is not a redirect.
    private func redirectTarget() -> String? {
        guard receiver.head.isRedirect, let target = hp_curl_redirect_url(easy) else { return nil }
        return String(cString: target)
    }

    /// Follows a redirect to `target`, the same range asked for there, when OriginPolicy allows
    /// it and fewer than `redirectLimit` were followed.
    private func follow(_ target: String) -> Progress {
        redirects += 1
        let refusal = redirects > Self.redirectLimit ? "more than \(Self.redirectLimit) redirects (the last to \(target))"
            : OriginPolicy.redirectRefusal(from: url, to: target, allowsDowngrade: allowsInsecureRedirect)
        if let refusal {
            finishRequest(.failed(refusal))
            return .failed(.refused, reason: refusal)
        }
        finishRequest(.completed)
        curl_multi_remove_handle(multi, easy)
        url = target
        _ = hp_curl_set_string(easy, CURLOPT_URL, target)
        setRequestFields(sentFields.extra, credentials: forwardsCredentials || OriginPolicy.isSameOrigin(requestedURL, target))
        receiver.beginHop()
        curl_multi_add_handle(multi, easy)
        if monitor != nil {
            request = NetworkRequest(startedAt: MonotonicClock.now(), url: target, range: requestRange, status: 0, bytes: 0,
                                     seconds: 0, outcome: .stopped)
        }
        return .receiving
    }

    /// Redirects followed for one request, at most (libcurl's default is 30; browsers stop at 20).
    static let redirectLimit = 10

    /// Makes a `pump` waiting for the network return at once; from any thread.
    func wake() { curl_multi_wakeup(multi) }

    private func finishedResult() -> CURLcode? {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            if message.pointee.msg == CURLMSG_DONE { return message.pointee.data.result }
        }
        return nil
    }

    private func outcome(of result: CURLcode) -> Progress {
        guard result != CURLE_OK else { return .completed }
        let (failure, reason) = failure(for: result)
        return .failed(failure, reason: reason)
    }

    /// Why the transfer failed, in a user's words, and what kind of failure it was.
    private func failure(for result: CURLcode) -> (TransferFailure, String) {
        let detail = String(cString: errorBuffer)
        let text = detail.isEmpty ? String(cString: curl_easy_strerror(result)) : detail
        if receiver.isHeadTooLarge {
            return (.refused, "a response head larger than \(TransferReceiver.headLimit >> 10) KiB")
        }
        switch result {
        case CURLE_UNSUPPORTED_PROTOCOL:
            return (.refused, text)
        case CURLE_HTTP_RETURNED_ERROR:
            let status = hp_curl_response_code(easy)
            var head = receiver.head
            if head.status != status { head = HTTPResponseHead(status: Int(status)) }
            return (.httpStatus(Int(status)), head.statusText)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return (.cannotResolve, text)
        case CURLE_COULDNT_CONNECT:
            return (.cannotConnect, text)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return (.tls, "TLS: \(text)")
        case CURLE_OPERATION_TIMEDOUT:
            return (.timedOut, text)
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            return (.cutShort, text)
        default:
            return (.other, text)
        }
    }
}
