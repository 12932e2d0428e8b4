/// The segment stream's fetches of a segment: its key and initialization section first, then
/// its bytes, from its mirrors when its URL fails, decrypted when it is encrypted.
extension SegmentStream {
    /// Opens `segment` of the playlist at `base` (the one playing when nil), its key first when
    /// it has one, to read from its start. An fMP4 segment under another initialization section
    /// than the section's ends the section (after a variant change, say): that one comes first.
    func open(_ segment: HLSSegment, base: String? = nil) throws(MediaError) {
        let base = base ?? playlistURL
        openSegment = (segment, base)
        if let map = segment.map {
            let mapURL = HLSURL.resolve(map.uri, against: base)
            let name = map.byteRange.map { "\(mapURL) bytes \($0.offset)+\($0.length)" } ?? mapURL
            if name != sectionInit || segment.timeOffset != sectionTimeOffset {
                if let failed = failedKeys[name] { throw failed }
                let bytes = try initializationSection(at: mapURL, range: map.byteRange, name: name,
                                                      mirrors: map.mirrors.map { HLSURL.resolve($0, against: base) })
                // A SAMPLE-AES-CTR key's URI is a license server when it is an http(s) URL.
                let license = segment.key.flatMap { $0.method == .sampleAESCTR && !$0.uri.isEmpty ? HLSURL.resolve($0.uri, against: base) : nil }
                    .flatMap { OriginPolicy.isRemote($0) ? $0 : nil }
                do {
                    sectionDecryptionKey = try sampleKey(for: bytes, licenseServer: license, input: mapURL, document: base)
                } catch {
                    // No key now, none for the next segment either: the stream ends here.
                    failedKeys[name] = error
                    throw error
                }
                sectionTimeOffset = segment.timeOffset
                initSection = bytes
                initSectionIndex = 0
                sectionInit = name
                isAtSectionEnd = sectionHasBytes
            }
        }
        if endsSectionAtEachSegment { isAtSectionEnd = sectionHasBytes }
        wholeSegment.removeAll(keepingCapacity: true)
        wholeSegmentRead = 0
        keyFramePrefixLength = 0
        isWholeSegmentFetched = false
        decryptor = nil
        if let key = segment.key, key.method != .sampleAESCTR {
            let keyURL = HLSURL.resolve(key.uri, against: base)
            // A live reload can bring a method the opening did not see.
            guard key.method == .aes128 else { throw MediaError(input: keyURL, reason: "\(key.method.rawValue) segments are not read by this client") }
            let bytes = try self.key(at: keyURL)
            decryptor = SegmentDecryptor(key: bytes, iv: key.iv(forSequence: segment.sequenceNumber))
            guard decryptor != nil else { throw MediaError(input: keyURL, reason: "cannot start AES-128 decryption") }
        }
        plaintext.removeAll(keepingCapacity: true)
        plaintextIndex = 0
        isDecryptionFinished = false
        let target = HLSURL.resolve(segment.uri, against: base)
        segmentBase = segment.byteRange?.offset ?? 0
        // After the first, a segment is the stream going on: a refused connection is waited out.
        // A live stream's segments are not kept: they are seen once. Only this fetch of those
        // above is the segment's download (`segmentNetworkSeconds`).
        let opening = MonotonicClock.now()
        defer { segmentNetworkSeconds += MonotonicClock.now() - opening }
        do {
            try http.open(url: target, at: segmentBase, length: segment.byteRange?.length, isContinuation: highestPosition > 0,
                          caching: playlist.isLive ? .bypass : .store)
        } catch {
            try openMirror(of: segment, base: base, failure: error)
        }
    }

    /// The segment's primary URL failed after the I/O layer's retries: the same bytes from its
    /// other copies (a DASH manifest's further BaseURLs), in order.
    func openMirror(of segment: HLSSegment, base: String, failure: MediaError) throws(MediaError) {
        var failure = failure
        for mirror in segment.mirrors where !http.isCancelled {
            let target = HLSURL.resolve(mirror, against: base)
            do {
                try http.open(url: target, at: segmentBase, length: segment.byteRange?.length, isContinuation: true,
                              caching: playlist.isLive ? .bypass : .store)
                Log.network.warning("\(failure.input): \(failure.reason); fetched from \(target) instead")
                options.monitor?.note(.retry(url: failure.input, reason: "\(failure.reason); from \(target)", delay: 0))
                return
            } catch {
                failure = error
            }
        }
        throw failure
    }

    /// The initialization section at `mapURL` (within `range`), fetched the first time it is needed.
    /// Failing that, from its `mirrors` in order.
    func initializationSection(at mapURL: String, range: HLSByteRange?, name: String, mirrors: [String]) throws(MediaError) -> [UInt8] {
        if let known = initSections[name] { return known }
        var bytes: [UInt8] = []
        var failure: MediaError?
        for target in [mapURL] + mirrors where !http.isCancelled {
            do {
                try http.open(url: target, at: range?.offset ?? 0, length: range?.length, isContinuation: highestPosition > 0, caching: .store)
                bytes = try http.readAll(limit: Self.playlistLimit)
                if let failure { Log.network.warning("\(failure.input): \(failure.reason); fetched from \(target) instead") }
                failure = nil
                break
            } catch {
                if failure == nil { failure = error }
            }
        }
        if let failure { throw failure }
        if http.isCancelled { throw MediaError(input: mapURL, reason: "cancelled") }
        guard !bytes.isEmpty else { throw MediaError(input: mapURL, reason: "an empty initialization section") }
        initSections[name] = bytes
        return bytes
    }

    /// The key that opens the samples an initialization section says are in Common Encryption
    /// (libavformat decrypts them): by its key ID, the user's (`--dash-clearkey`), else one
    /// from the user's license server, else from the one the manifest names. nil when the
    /// section is clear. Held in memory alone.
    /// `document`: the manifest that named the license server; an https one may not name an
    /// http server, as a redirect may not go there.
    func sampleKey(for initSection: [UInt8], licenseServer: String?, input: String, document: String) throws(MediaError) -> [UInt8]? {
        let protections = CENCProtection.all(initSection: initSection)
        guard let protection = protections.first else { return nil }
        // libavformat 5.1 takes one key for a demuxer.
        guard protections.allSatisfy({ $0.keyID == protection.keyID }) else {
            throw MediaError(input: input, reason: "tracks encrypted under different key IDs in one initialization section: not supported")
        }
        guard protection.scheme == "cenc" else {
            throw MediaError(input: input, reason: "encrypted with \(protection.schemeName): not supported (libavformat 5.1 decrypts cenc alone)")
        }
        if let known = keyRing.key(for: protection.keyID) { return known }
        let keyID = ClearKey.hex(protection.keyID)
        guard let server = options.clearKeyServer ?? licenseServer else {
            throw MediaError(input: input, reason: "encrypted (cenc) with key ID \(keyID): no key (--dash-clearkey KID:KEY, or a license server with --dash-clearkey-server URL)")
        }
        if options.clearKeyServer == nil, let refusal = OriginPolicy.redirectRefusal(from: document, to: server, allowsDowngrade: options.allowsInsecureRedirect) {
            throw MediaError(input: server, reason: "a license server: \(refusal)")
        }
        let licensed = try ClearKeyLicense.fetch(from: server, keyIDs: [protection.keyID], options: options) { http.isCancelled }
        keyRing.add(licensed)
        guard let key = licensed.first(where: { $0.keyID == protection.keyID }) else {
            throw MediaError(input: server, reason: "the license has no key for key ID \(keyID)")
        }
        return key.key
    }

    /// The 16-byte key at `keyURL`, fetched the first time it is needed and held in memory
    /// alone: never in the disk cache, where it would open every cached segment to whoever
    /// reads the cache. Only a key the user kept on purpose (KeptKeys) is read from disk.
    func key(at keyURL: String) throws(MediaError) -> [UInt8] {
        if let known = keys[keyURL] { return known }
        if let failed = failedKeys[keyURL] { throw failed }
        let kept = store.map { KeptKeys(directory: $0.directory) }
        if let bytes = kept?.key(for: keyURL) {
            keys[keyURL] = bytes
            return bytes
        }
        let bytes: [UInt8]
        do {
            try http.open(url: keyURL, at: 0, length: nil, isContinuation: highestPosition > 0, caching: .bypass)
            bytes = try http.readAll(limit: 64)
        } catch {
            if http.isCancelled { throw error }
            let failure = MediaError(input: keyURL, reason: "the AES-128 key cannot be fetched (\(error.reason)); keys are never kept in the disk cache")
            failedKeys[keyURL] = failure
            throw failure
        }
        guard bytes.count == SegmentDecryptor.blockSize else {
            let failure = MediaError(input: keyURL, reason: "an AES-128 key of \(bytes.count) bytes, not 16")
            failedKeys[keyURL] = failure
            throw failure
        }
        if options.keepsKeys, let kept { try kept.keep(bytes, for: keyURL) }
        // An older hplayer kept keys in the cache: one found there goes.
        if let store, store.entry(for: keyURL) != nil { store.remove(keyURL) }
        keys[keyURL] = bytes
        return bytes
    }

    /// The current segment's next bytes, decrypted when it is encrypted; 0 at its end.
    func readSegment(into buffer: UnsafeMutableRawBufferPointer) throws(MediaError) -> Int {
        let reading = MonotonicClock.now()
        defer { segmentNetworkSeconds += MonotonicClock.now() - reading }
        guard let decryptor else { return try http.read(into: buffer) }
        while plaintextIndex >= plaintext.count {
            plaintext.removeAll(keepingCapacity: true)
            plaintextIndex = 0
            guard !isDecryptionFinished else { return 0 }
            let count = try http.read(into: scratch)
            if count > 0 {
                decryptor.decrypt(UnsafeRawBufferPointer(rebasing: scratch[..<count]), into: &plaintext)
                continue
            }
            isDecryptionFinished = true
            do {
                try decryptor.finish(into: &plaintext)
            } catch {
                throw MediaError(input: http.url, reason: error.description)
            }
        }
        let count = min(buffer.count, plaintext.count - plaintextIndex)
        plaintext.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + plaintextIndex, byteCount: count) }
        plaintextIndex += count
        return count
    }
}
