import Testing
@testable import HPlayerKit

@Suite struct HTTPResponseHeadTests {
    static func head(_ lines: [String]) -> HTTPResponseHead {
        var head = HTTPResponseHead()
        for line in lines { head.add(line: line + "\r\n") }
        return head
    }

    @Test("A head's status, length, type, validators, ranges and where its body starts", arguments: [
        (["HTTP/1.1 200 OK", "Content-Length: 1000", "Content-Type: video/mp4", "ETag: \"abc\"", "Last-Modified: Mon, 23 Nov 2026 10:00:00 GMT", "Accept-Ranges: bytes", ""],
         200, "HTTP 200 OK", ByteSourceInfo(contentLength: 1000, mimeType: "video/mp4", entityTag: "\"abc\"", lastModified: "Mon, 23 Nov 2026 10:00:00 GMT", acceptsRanges: true), Int64(0)),
        // A partial answer: the length is the whole resource's, from Content-Range.
        (["HTTP/1.1 206 Partial Content", "Content-Length: 900", "Content-Range: bytes 100-999/1000", ""],
         206, "HTTP 206 Partial Content", ByteSourceInfo(contentLength: 1000, acceptsRanges: true), 100),
        (["HTTP/1.1 206 Partial Content", "Content-Range: bytes 100-199/*", ""],
         206, "HTTP 206 Partial Content", ByteSourceInfo(contentLength: nil, acceptsRanges: true), 100),
        // A redirect, then the answer: the last head counts.
        (["HTTP/1.1 302 Found", "Location: /other", "Content-Length: 0", "", "HTTP/1.1 200 OK", "Content-Length: 5", ""],
         200, "HTTP 200 OK", ByteSourceInfo(contentLength: 5, acceptsRanges: false), 0),
        // HTTP/2 gives no reason phrase; field names in any case.
        (["HTTP/2 404", "content-length: 12", "CONTENT-TYPE: text/html", ""],
         404, "HTTP 404", ByteSourceInfo(contentLength: 12, mimeType: "text/html", acceptsRanges: false), 0),
    ] as [([String], Int, String, ByteSourceInfo, Int64)])
    func parses(lines: [String], status: Int, statusText: String, info: ByteSourceInfo, bodyOffset: Int64) {
        let head = Self.head(lines)
        #expect(head.status == status)
        #expect(head.statusText == statusText)
        #expect(head.info == info)
        #expect(head.bodyOffset == bodyOffset)
    }
}

@Suite struct RevalidationTests {
    @Test("A conditional request sends the ETag where known, else the Last-Modified date, else nothing", arguments: [
        ("\"abc\"" as String?, "Mon, 23 Nov 2026 10:00:00 GMT" as String?, ["If-None-Match: \"abc\""]),
        ("W/\"weak\"", nil, ["If-None-Match: W/\"weak\""]),
        (nil, "Mon, 23 Nov 2026 10:00:00 GMT", ["If-Modified-Since: Mon, 23 Nov 2026 10:00:00 GMT"]),
        (nil, nil, []),
    ] as [(String?, String?, [String])])
    func conditionFields(entityTag: String?, lastModified: String?, fields: [String]) {
        #expect(Revalidation.conditionFields(entityTag: entityTag, lastModified: lastModified) == fields)
    }
}

@Suite struct TransferRetryTests {
    @Test("Which failures are tried again, after how long, and when the policy gives up", arguments: [
        // A drop mid-body: five tries, the wait doubling.
        (TransferFailure.cutShort, 1, false, 0.25 as Double?),
        (.cutShort, 2, false, 0.5),
        (.cutShort, 5, false, 4),
        (.cutShort, 6, false, nil),
        (.timedOut, 1, false, 0.25),
        (.timedOut, 3, true, 1),
        (.timedOut, 4, true, nil),
        // A busy server is asked again; a missing file or a refusal of access is not.
        (.httpStatus(503), 1, true, 0.25),
        (.httpStatus(500), 2, false, 0.5),
        (.httpStatus(429), 1, true, 0.25),
        (.httpStatus(404), 1, true, nil),
        (.httpStatus(403), 1, false, nil),
        // At the opening a refused connection is an error at once; mid-body, a server restarting.
        (.cannotConnect, 1, true, nil),
        (.cannotConnect, 1, false, 0.25),
        (.other, 1, true, nil),
        (.other, 2, false, 0.5),
        // Never: a name that does not resolve, a certificate refused.
        (.cannotResolve, 1, false, nil),
        (.tls, 1, false, nil),
    ] as [(TransferFailure, Int, Bool, Double?)])
    func decides(failure: TransferFailure, attempt: Int, isOpening: Bool, delay: Double?) {
        #expect(TransferRetry.delay(after: failure, attempt: attempt, isOpening: isOpening) == delay)
    }
}

@Suite struct TransferReceiverTests {
    func receive(_ receiver: TransferReceiver, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { receiver.receive($0) }
    }

    func take(_ receiver: TransferReceiver, _ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let taken = out.withUnsafeMutableBytes { receiver.take(into: $0) }
        return Array(out.prefix(taken))
    }

    @Test("A server that ignores the range: the bytes before the one asked for are dropped")
    func ignoredRangeIsSkipped() {
        let receiver = TransferReceiver()
        receiver.begin(at: 3)
        _ = receiver.addHeader("HTTP/1.1 200 OK\r\n", byteCount: "HTTP/1.1 200 OK\r\n".utf8.count)
        receive(receiver, [0, 1, 2, 3, 4])
        receive(receiver, [5, 6])
        #expect(take(receiver, 10) == [3, 4, 5, 6])
        #expect(receiver.nextPosition == 7)
    }

    @Test("A 206 from the byte asked for keeps every byte; a skip ahead drops what arrives up to the target")
    func partialAnswerAndSkipAhead() {
        let receiver = TransferReceiver()
        receiver.begin(at: 10)
        _ = receiver.addHeader("HTTP/1.1 206 Partial Content\r\n", byteCount: "HTTP/1.1 206 Partial Content\r\n".utf8.count)
        _ = receiver.addHeader("Content-Range: bytes 10-99/100\r\n", byteCount: "Content-Range: bytes 10-99/100\r\n".utf8.count)
        receive(receiver, [10, 11, 12])
        #expect(take(receiver, 1) == [10])
        receiver.skipArriving(2)  // the pending 11 and 12 are gone; 13 and 14 are dropped as they come
        receive(receiver, [13, 14, 15, 16])
        #expect(take(receiver, 10) == [15, 16])
        #expect(receiver.nextPosition == 17)
    }

    @Test("A new request after a drop keeps the bytes that arrived and were not read")
    func pendingBytesSurviveARetry() {
        let receiver = TransferReceiver()
        receiver.begin(at: 0)
        receive(receiver, [0, 1, 2, 3])
        #expect(take(receiver, 2) == [0, 1])
        receiver.begin(at: receiver.nextPosition)
        _ = receiver.addHeader("HTTP/1.1 206 Partial Content\r\n", byteCount: "HTTP/1.1 206 Partial Content\r\n".utf8.count)
        _ = receiver.addHeader("Content-Range: bytes 4-9/10\r\n", byteCount: "Content-Range: bytes 4-9/10\r\n".utf8.count)
        receive(receiver, [4, 5])
        #expect(take(receiver, 10) == [2, 3, 4, 5])
    }
}
