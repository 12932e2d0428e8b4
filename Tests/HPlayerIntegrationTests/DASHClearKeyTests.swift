import Foundation
import HPlayerKit
import Testing

extension Playback {
    /// Common Encryption with ClearKey (docs/dash.md): a CMAF package of our packager with its
    /// samples encrypted (`hplayer encode --dash --cenc`), played through DASH and HLS with the
    /// key given, or fetched from the fault server's license endpoint. The reference is ffmpeg
    /// decrypting the same segments (`-decryption_key`), so the packager's encryption and the
    /// player's decryption are each checked against FFmpeg's. About 15 s.
    @Suite(.timeLimit(.minutes(2))) struct DASHClearKey {
        static let keyID = "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf"
        static let key = "00112233445566778899aabbccddeeff"

        /// FOLDER/manifest.mpd and master.m3u8: one 320x240 rung and the sound, in 2 s segments,
        /// encrypted under `keyID`; with `encrypted` false, the same package in the clear (the
        /// encoder is deterministic: the same frames).
        static func package(encrypted: Bool = true) throws -> String {
            let folder = Fixtures.directory.appendingPathComponent(encrypted ? "dash-cenc" : "dash-cenc-clear").path
            if FileManager.default.fileExists(atPath: folder + "/manifest.mpd") { return folder }
            let made = try Command.run([Command.hplayer, "encode", "--from", try DASHPlayback.source(), "--hls", folder, "--dash",
                                        "--ladder", "240p:300k", "--hls-time", "2", "--no-progress"]
                                       + (encrypted ? ["--cenc", "\(keyID):\(key)"] : []), timeout: 120)
            guard made.status == 0 else { throw FixtureError(description: "hplayer encode --cenc: \(made.stderr)") }
            return folder
        }

        /// The frames of `stream` in the clear package, as ffmpeg decodes them.
        static func clearFrames(_ stream: String) throws -> [String] {
            try ffmpegFrames(try package(encrypted: false), stream: stream, key: nil)
        }

        /// ffmpeg's frames of `stream` (240p or audio), its initialization section and segments
        /// read as one stream, decrypted with `key` (nil: not decrypted). FFmpeg 5.1 decrypts
        /// fragments only when it reads them as a stream (`pipe:`), not from a seekable file.
        static func ffmpegFrames(_ folder: String, stream: String, key: String?) throws -> [String] {
            let segments = try FileManager.default.contentsOfDirectory(atPath: folder)
                .filter { $0.hasPrefix("\(stream)_") && $0.hasSuffix(".m4s") }
                .sorted { Int($0.dropFirst(stream.count + 1).dropLast(4)) ?? 0 < Int($1.dropFirst(stream.count + 1).dropLast(4)) ?? 0 }
            let joined = folder + "/\(stream)-joined.mp4"
            var bytes = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(stream)_init.mp4"))
            for segment in segments { bytes += try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(segment)")) }
            try bytes.write(to: URL(fileURLWithPath: joined))
            let result = try Command.run(["sh", "-c", "ffmpeg -nostdin -v error \(key.map { "-decryption_key \($0)" } ?? "") -f mp4 -i pipe: -f framemd5 - < '\(joined)'"])
            return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
                $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
            }
        }

        @Test("The packager's segments are encrypted (ffmpeg without the key gets other frames) and decrypt with ffmpeg's -decryption_key to the clear package's picture and sound",
              .timeLimit(.minutes(1)))
        func packageDecryptsWithFFmpeg() throws {
            let folder = try Self.package()
            let picture = try Self.ffmpegFrames(folder, stream: "240p", key: Self.key)
            let sound = try Self.ffmpegFrames(folder, stream: "audio", key: Self.key)
            #expect(picture.count == 150 && sound.count > 250, "\(picture.count) pictures, \(sound.count) sound frames")
            let (clearPicture, clearSound) = (try Self.clearFrames("240p"), try Self.clearFrames("audio"))
            #expect(picture == clearPicture && sound == clearSound)
            #expect(try Self.ffmpegFrames(folder, stream: "240p", key: nil) != picture)
            let mpd = try String(contentsOfFile: folder + "/manifest.mpd", encoding: .utf8)
            #expect(mpd.contains(#"cenc:default_KID="a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf""#) && mpd.contains("urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e"))
        }

        static func options(keys: String? = nil, server: String? = nil) throws -> PlayerOptions {
            var options = PlayerOptions()
            options.isUntimed = true
            if let keys { options.source.network.clearKeys = try ClearKey.parseList(keys) }
            options.source.network.clearKeyServer = server
            return options
        }

        @Test("With the key given (--dash-clearkey), the DASH manifest and the HLS master of the same package each play the clear package's frames, and the sound",
              arguments: ["manifest.mpd", "master.m3u8"])
        func keyGiven(manifest: String) async throws {
            let folder = try Self.package()
            let server = try FaultServer(root: folder)
            let session = PlayerSession(url: server.url(manifest), options: try Self.options(keys: "\(Self.keyID):\(Self.key)"),
                                        name: "cenc-key", pacedAudio: false)
            try await session.playToEnd()
            #expect(session.presentedFrames.map(\.md5) == (try Self.clearFrames("240p")))
            #expect(try session.recordedAudio().samples.count > 44_100 * 5)
            _ = folder
        }

        @Test("The key from the license server the MPD names (dashif:Laurl): asked for once by its key ID, for the picture's stream and the sound's, then the clear package's frames, and the sound")
        func keyFromLicenseServer() async throws {
            let folder = try Self.package()
            let server = try FaultServer(["--clearkey", "\(Self.keyID):\(Self.key)"], root: folder)
            let original = try String(contentsOfFile: folder + "/manifest.mpd", encoding: .utf8)
            let licensed = original.replacingOccurrences(of: #"value="ClearKey1.0"/>"#,
                                                         with: #"value="ClearKey1.0"><dashif:Laurl>\#(server.url("_license"))</dashif:Laurl></ContentProtection>"#)
            try #require(licensed != original)
            try licensed.write(toFile: folder + "/licensed.mpd", atomically: true, encoding: .utf8)
            let session = PlayerSession(url: server.url("licensed.mpd"), options: try Self.options(), name: "cenc-license", pacedAudio: false)
            try await session.playToEnd()
            #expect(session.presentedFrames.map(\.md5) == (try Self.clearFrames("240p")))
            #expect(try session.recordedAudio().samples.count > 44_100 * 5)
            let asked = server.requests.filter { $0.path == "/_license" }
            // The sound's stream shares the picture's keys.
            #expect(asked.count == 1 && asked.allSatisfy { $0.status == 200 && $0.kids == ["oKGio6SlpqeoqaqrrK2urw"] }, "license requests: \(asked)")
        }

        @Test("Without a key, or from a license server with none for its key ID: one error line naming the initialization section or the server, and the key ID, exit 1",
              arguments: [[String](), ["--dash-clearkey-server", "LICENSE"]])
        func noKey(arguments: [String]) throws {
            let folder = try Self.package()
            // The server holds a key for another ID alone.
            let server = try FaultServer(["--clearkey", "b0b1b2b3b4b5b6b7b8b9babbbcbdbebf:\(Self.key)"], root: folder)
            let result = try Command.run([Command.hplayer, "play", server.url("manifest.mpd"), "--vo", "null", "--ao", "null", "--untimed", "--no-status"]
                                         + arguments.map { $0 == "LICENSE" ? server.url("_license") : $0 }, timeout: 60)
            let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("hplayer: error: ") }
            let named = arguments.isEmpty ? "_init.mp4" : "/_license"
            #expect(result.status == 1 && errors.count == 1 && errors.first?.contains(Self.keyID) == true && errors.first?.contains(named) == true,
                    "exit \(result.status): \(result.stderr)")
        }
    }
}
