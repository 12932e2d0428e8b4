/// What a document may make the player open: one rule for every URL a playlist, a manifest or
/// a key names, checked once the URL is resolved against the document's own. A document
/// fetched over the network is written by a stranger: it may name only http and https URLs,
/// never a file on this machine nor another protocol (gopher, dict, ftp… would make the player
/// a tool to reach local services). A local document is the user's own, as the command line
/// is: it may name local files, and any stream the command line takes (an IPTV list's udp://
/// and rtsp:// entries). A pure decision, tested by table.
package enum OriginPolicy {
    /// The schemes the I/O layer's transfers speak (libcurl is limited to these too).
    package static let networkSchemes: Set<String> = ["http", "https"]
    /// The protocols libavformat may open by itself for a remote input it reads (an HLS stream
    /// our client leaves to it): the network ones and what they stand on, no file, no other.
    package static let libavformatWhitelist = "http,https,tls,tcp,crypto,httpproxy"

    /// The URL `reference` names in `document` (RFC 3986 §5.2): what the policy is put to.
    package static func resolve(_ reference: String, against document: String) -> String {
        HLSURL.resolve(reference, against: document)
    }

    /// Why `reference` (resolved) may not be opened for `document`; nil when it may.
    package static func refusal(of reference: String, namedBy document: String) -> String? {
        let scheme = self.scheme(of: reference)
        if let scheme, networkSchemes.contains(scheme) { return nil }
        guard isRemote(document) else { return nil }
        guard let scheme, scheme != "file" else { return "a remote document may not name a local file" }
        return "a remote document may name only http and https URLs, not \(scheme)"
    }

    /// Whether `url` is fetched over the network: an http or https URL.
    package static func isRemote(_ url: String) -> Bool {
        scheme(of: url).map(networkSchemes.contains) ?? false
    }

    /// Why a redirect from `from` to `to` is not followed; nil when it is. `allowsDowngrade`:
    /// `--http-allow-insecure-redirect`, https may then be redirected to http.
    package static func redirectRefusal(from: String, to: String, allowsDowngrade: Bool) -> String? {
        guard let target = scheme(of: to), networkSchemes.contains(target) else {
            return "redirected to \(to): only http and https are followed"
        }
        if scheme(of: from) == "https", target == "http", !allowsDowngrade {
            return "redirected from https to http (\(to)): refused (--http-allow-insecure-redirect allows it)"
        }
        return nil
    }

    /// Whether a redirect from `from` to `to` stays with the same server (scheme, host and port):
    /// the user's header fields and referrer go only there.
    package static func isSameOrigin(_ from: String, _ to: String) -> Bool {
        guard let a = HLSURL.server(of: from), let b = HLSURL.server(of: to) else { return false }
        return a == b
    }

    /// The scheme in lower case ("http"), or nil for a path (absolute or relative): a letter,
    /// then letters, digits, +, - or ., before a colon and before any / ? #.
    static func scheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":"), let first = url.first, first.isASCII, first.isLetter else { return nil }
        let name = url[..<colon]
        guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }) else { return nil }
        return name.lowercased()
    }
}
