import FoundationEssentials

/// A ClearKey license server (W3C Encrypted Media Extensions, §9.1.3–9.1.4): a POST of the key
/// IDs wanted, `{"kids":["…"],"type":"temporary"}`, answered with a JSON Web Key Set,
/// `{"keys":[{"kty":"oct","kid":"…","k":"…"}]}`, every ID and key in unpadded base64url. The
/// keys it gives are held in memory alone.
package enum ClearKeyLicense {
    /// The request for `keyIDs`.
    package static func request(keyIDs: [[UInt8]]) -> [UInt8] {
        let kids = keyIDs.map { "\"\(base64URL($0))\"" }.joined(separator: ",")
        return Array("{\"kids\":[\(kids)],\"type\":\"temporary\"}".utf8)
    }

    private struct KeySet: Decodable {
        struct Key: Decodable {
            var kty: String?
            var kid: String
            var k: String
        }
        var keys: [Key]
    }

    /// The keys of a license; an error says what is wrong with it.
    package static func keys(in license: [UInt8]) throws(ClearKeyError) -> [ClearKey] {
        let set: KeySet
        do { set = try JSONDecoder().decode(KeySet.self, from: Data(license)) } catch {
            throw ClearKeyError("not a ClearKey license (a JSON Web Key Set with keys of kid and k)")
        }
        return try set.keys.map { entry throws(ClearKeyError) in
            guard entry.kty == nil || entry.kty == "oct" else { throw ClearKeyError("a key not of type oct") }
            guard let keyID = bytes(base64URL: entry.kid), keyID.count == 16 else { throw ClearKeyError("a key ID that is not 16 bytes of base64url") }
            guard let key = bytes(base64URL: entry.k), key.count == 16 else { throw ClearKeyError("the key for \(ClearKey.hex(keyID)) is not 16 bytes of base64url") }
            return ClearKey(keyID: keyID, key: key)
        }
    }

    /// Asks `server` for `keyIDs`: the keys it gives, within `DocumentLimit.seconds`; given up
    /// as soon as `isCancelled` says so (the player closing or seeking).
    package static func fetch(from server: String, keyIDs: [[UInt8]], options: NetworkOptions,
                              isCancelled: () -> Bool) throws(MediaError) -> [ClearKey] {
        guard OriginPolicy.isRemote(server) else { throw MediaError(input: server, reason: "a license server is an http or https URL") }
        let transfer = try CurlTransfer(url: server, options: options)
        transfer.setRequestBody(request(keyIDs: keyIDs))
        transfer.start(at: 0, extraFields: ["Content-Type: application/json"])
        let body: [UInt8]
        do { body = try transfer.exchange(limit: licenseLimit, isCancelled: isCancelled).body } catch {
            throw MediaError(input: server, reason: "no license: \(error.reason)")
        }
        do { return try keys(in: body) } catch { throw MediaError(input: server, reason: error.reason) }
    }

    /// A license holds a few keys: anything near this is not one.
    static let licenseLimit = 1 << 16

    package static func base64URL(_ bytes: [UInt8]) -> String {
        String(Data(bytes).base64EncodedString().replacing("+", with: "-").replacing("/", with: "_").prefix { $0 != "=" })
    }

    package static func bytes(base64URL text: String) -> [UInt8]? {
        var standard = text.replacing("-", with: "+").replacing("_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard).map(Array.init)
    }
}
