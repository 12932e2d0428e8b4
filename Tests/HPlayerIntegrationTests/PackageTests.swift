import Foundation
import HPlayerKit
import Testing

extension Playback {
    /// `hplayer encode --hls`: the package checked with ffprobe and played from nginx by hplayer,
    /// ffmpeg and mpv.
    @Suite struct Packaging {
        /// 10 s at 25 fps (250 frames) with a 440 Hz tone, three rungs, 2 s segments.
        static let ladder = "360p:800k,240p:400k,180p:200k"
        static let frames = 250

        func package(_ folder: String, _ extra: [String] = []) throws -> CommandResult {
            let result = try Command.run([Command.hplayer, "encode", "--from", "pattern:640x360@25", "-t", "10", "--hls", folder,
                                          "--ladder", Self.ladder, "--hls-time", "2", "--preset", "veryfast"] + extra, timeout: 300)
            #expect(!result.timedOut && result.status == 0, "\(result.stderr)")
            return result
        }

        /// A playlist's lines: each URI line with the tag lines before it.
        func entries(_ path: String) throws -> [(tags: [String], uri: String)] {
            var entries: [(tags: [String], uri: String)] = []
            var tags: [String] = []
            for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init) {
                if line.hasPrefix("#") { tags.append(line) } else { entries.append((tags, line)); tags = [] }
            }
            return entries
        }

        func attribute(_ name: String, in tag: String) -> String? {
            guard let range = tag.range(of: name + "=") else { return nil }
            return String(tag[range.upperBound...].prefix { $0 != "," })
        }

        func extinf(_ tags: [String]) -> Double? {
            tags.first { $0.hasPrefix("#EXTINF:") }.flatMap { Double($0.dropFirst(8).prefix { $0 != "," }) }
        }

        @Test("VOD ladder: every segment of every variant starts with a key frame, the cuts coincide across variants, EXTINF sums to the source's 10 s within a frame, BANDWIDTH is at least each variant's peak segment rate, the top variant holds every frame")
        func vodLadder() throws {
            let folder = Fixtures.newFolder("package")
            _ = try package(folder)
            let variants = try entries(folder + "/master.m3u8")
            #expect(variants.map(\.uri) == ["360p.m3u8", "240p.m3u8", "180p.m3u8"])
            var cutLists: [[Double]] = []
            for variant in variants {
                let streamInf = try #require(variant.tags.first { $0.hasPrefix("#EXT-X-STREAM-INF:") })
                let bandwidth = try #require(Double(attribute("BANDWIDTH", in: streamInf) ?? ""))
                #expect(attribute("CODECS", in: streamInf)?.hasPrefix("\"avc1.64") == true, "\(streamInf)")
                #expect(streamInf.contains("mp4a.40.2\"") && attribute("FRAME-RATE", in: streamInf) == "25.000", "\(streamInf)")
                let segments = try entries(folder + "/" + variant.uri)
                #expect(segments.count == 5)
                var cuts: [Double] = []
                var elapsed = 0.0
                var peak = 0.0
                for segment in segments {
                    let duration = try #require(extinf(segment.tags))
                    cuts.append(elapsed)
                    elapsed += duration
                    let path = folder + "/" + segment.uri
                    let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
                    peak = max(peak, Double(size) * 8 / duration)
                    let first = try Command.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-read_intervals", "%+#1",
                                                 "-show_entries", "frame=key_frame,pict_type", "-of", "csv=p=0", path])
                    #expect(first.stdout.split(separator: "\n").first?.hasPrefix("1,I") == true, "\(segment.uri): \(first.stdout)")
                }
                #expect(abs(elapsed - 10) <= 1.0 / 25 / 2, "\(variant.uri): \(elapsed)")
                #expect(bandwidth >= peak, "\(variant.uri): BANDWIDTH \(bandwidth) under the peak \(peak)")
                cutLists.append(cuts)
            }
            #expect(Set(cutLists.map { $0.map { ($0 * 1000).rounded() } }).count == 1, "\(cutLists)")
            let top = try Command.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                                       "stream=nb_read_frames,width,height", "-of", "csv=p=0", folder + "/360p.m3u8"])
            #expect(top.stdout.split(separator: "\n").first == "640,360,\(Self.frames)", "\(top.stdout)")
        }

        @Test("The package from nginx: hplayer plays it with every --hls-bitrate choice (each variant's own pictures, framemd5 against ffmpeg's decoding of that variant), and ffmpeg and mpv play it too")
        func playedFromNginx() throws {
            let folder = Fixtures.newFolder("package-served")
            _ = try package(folder)
            let nginx = try NginxServer(root: folder)
            let master = nginx.url("master.m3u8")
            let variants = try entries(folder + "/master.m3u8")
            let bandwidths = variants.map { attribute("BANDWIDTH", in: $0.tags.last!)! }
            let choices = [("max", "360p"), ("min", "180p")] + zip(bandwidths, variants).map { ($0, String($1.uri.dropLast(5))) }
            for (choice, variant) in choices {
                let expected = try Fixtures.frameMD5s(nginx.url("\(variant).m3u8"))
                #expect(expected.count == Self.frames)
                let played = Fixtures.newFolder("package-played")
                let result = try Command.run([Command.hplayer, master, "--hls-bitrate", choice, "--vo", "record:\(played)", "--ao", "null",
                                              "--untimed", "--no-status"], timeout: 120)
                #expect(result.status == 0, "--hls-bitrate=\(choice): \(result.stderr)")
                let md5s = try String(contentsOfFile: played + "/video.tsv", encoding: .utf8).split(separator: "\n").map { String($0.split(separator: "\t")[2]) }
                #expect(md5s == expected, "--hls-bitrate=\(choice) should play \(variant)")
            }
            let ffmpeg = try Command.run(["ffmpeg", "-nostdin", "-v", "error", "-i", master, "-map", "0:v:0", "-map", "0:a:0", "-f", "null", "-"])
            #expect(ffmpeg.status == 0, "\(ffmpeg.stderr)")
            let mpv = try Command.run(["mpv", "--no-config", "--vo=null", "--ao=null", "--untimed", "--msg-level=all=error", master], timeout: 120)
            #expect(mpv.status == 0, "\(mpv.stderr)")
        }

        @Test("fMP4 segments, the sound as its own rendition and AES-128: init sections, EXT-X-MAP and EXT-X-KEY, ciphertext on disk, and from nginx ffmpeg decodes every frame and hplayer plays them")
        func fragmentedSeparateEncrypted() throws {
            let folder = Fixtures.newFolder("package-fmp4")
            let key = (0..<16).map { UInt8($0 * 7 + 3) }
            try Data(key).write(to: URL(fileURLWithPath: folder + "/key.bin"))
            _ = try package(folder, ["--hls-segment-type", "fmp4", "--hls-audio", "separate", "--hls-key", folder + "/key.bin"])
            let master = try String(contentsOfFile: folder + "/master.m3u8", encoding: .utf8)
            #expect(master.contains("#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"audio\"") && master.contains("AUDIO=\"audio\""), "\(master)")
            let media = try String(contentsOfFile: folder + "/360p.m3u8", encoding: .utf8)
            #expect(media.contains("#EXT-X-MAP:URI=\"360p_init.mp4\"") && media.contains("#EXT-X-KEY:METHOD=AES-128,URI=\"key.bin\""))
            let first = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/360p_0.m4s")))
            #expect(first.count % 16 == 0)
            #expect(!first[4..<8].elementsEqual(Array("moof".utf8)) && !first[4..<8].elementsEqual(Array("styp".utf8)))
            let initSection = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/360p_init.mp4")))
            #expect(initSection[4..<8].elementsEqual(Array("ftyp".utf8)))

            // An independent decryption (openssl, IV = the media sequence number) gives an fMP4 fragment.
            let hexKey = key.map { String(format: "%02x", $0) }.joined()
            let clear = try Command.run(["sh", "-c", "openssl enc -d -aes-128-cbc -K \(hexKey) -iv 00000000000000000000000000000001 -in \(folder)/360p_1.m4s | head -c 8 | od -An -c"])
            #expect(clear.stdout.replacingOccurrences(of: " ", with: "").contains("moof"), "\(clear.stdout) \(clear.stderr)")

            let nginx = try NginxServer(root: folder)
            let url = nginx.url("master.m3u8")
            let decoded = try Command.run(["ffprobe", "-v", "error", "-allowed_extensions", "ALL", "-select_streams", "v:0", "-count_frames",
                                           "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", nginx.url("360p.m3u8")])
            #expect(decoded.stdout.split(separator: "\n").first == "\(Self.frames)", "\(decoded.stderr)")
            // The sound apart: 10 s of AAC frames (1024 samples at 48 kHz), and the priming one.
            let sound = try Command.run(["ffprobe", "-v", "error", "-select_streams", "a:0", "-count_frames",
                                         "-show_entries", "stream=nb_read_frames,codec_name", "-of", "csv=p=0", nginx.url("audio.m3u8")])
            let soundFields = sound.stdout.split(separator: "\n").first?.split(separator: ",") ?? []
            #expect(soundFields.first == "aac" && (soundFields.last.flatMap { Int($0) } ?? 0) >= 10 * 48000 / 1024, "\(sound.stdout) \(sound.stderr)")
            let played = Fixtures.newFolder("package-fmp4-played")
            let result = try Command.run([Command.hplayer, url, "--hls-bitrate", "max", "--vo", "record:\(played)", "--ao", "null",
                                          "--untimed", "--no-status"], timeout: 120)
            #expect(result.status == 0, "\(result.stderr)")
            let frames = try String(contentsOfFile: played + "/video.tsv", encoding: .utf8).split(separator: "\n")
            #expect(frames.count == Self.frames)
        }

        @Test("--dash: one CMAF package, manifest.mpd beside master.m3u8 naming the same fMP4 segments; from nginx, hplayer's DASH client shows the frames its HLS client shows for each rung, ffmpeg's dash demuxer decodes every frame")
        func cmafForHLSAndDASH() throws {
            let folder = Fixtures.newFolder("package-cmaf")
            _ = try package(folder, ["--dash"])
            let mpd = try MPDParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/manifest.mpd"))), url: "http://127.0.0.1/manifest.mpd")
            #expect(!mpd.isDynamic && abs((mpd.mediaPresentationDuration ?? 0) - 10) < 0.05)
            let sets = mpd.periods[0].adaptationSets
            #expect(sets.map(\.contentType) == [.video, .audio] && sets[0].representations.map(\.id) == ["360p", "240p", "180p"])
            let nginx = try NginxServer(root: folder)
            let decoded = try Command.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames",
                                           "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", nginx.url("manifest.mpd")])
            #expect(decoded.stdout.split(separator: "\n").first == "\(Self.frames)", "\(decoded.stderr)")
            for bitrate in ["max", "min"] {
                var shown: [[Substring]] = []
                for manifest in ["master.m3u8", "manifest.mpd"] {
                    let played = Fixtures.newFolder("package-cmaf-played")
                    let result = try Command.run([Command.hplayer, nginx.url(manifest), "--hls-bitrate", bitrate, "--vo", "record:\(played)", "--ao", "null",
                                                  "--untimed", "--no-status", "--cache=no"], timeout: 120)
                    #expect(result.status == 0, "\(result.stderr)")
                    shown.append(try String(contentsOfFile: played + "/video.tsv", encoding: .utf8).split(separator: "\n").map { $0.split(separator: "\t").last ?? "" })
                }
                #expect(shown[0].count == Self.frames && shown[0] == shown[1], "--hls-bitrate \(bitrate): HLS showed \(shown[0].count) frames, DASH \(shown[1].count)")
            }
        }

        @Test("Segments are --hls-time long even where --keyint does not divide it (key frames every 3 s, segments of 2 s), and every one starts with a key frame")
        func segmentLengthKept() throws {
            let folder = Fixtures.newFolder("package-keyint")
            _ = try package(folder, ["--keyint", "75"])
            let segments = try entries(folder + "/240p.m3u8")
            #expect(segments.compactMap { extinf($0.tags) } == [2, 2, 2, 2, 2])
            #expect(try String(contentsOfFile: folder + "/240p.m3u8", encoding: .utf8).contains("#EXT-X-TARGETDURATION:2\n"))
            for segment in segments {
                let first = try Command.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-read_intervals", "%+#1",
                                             "-show_entries", "frame=key_frame,pict_type", "-of", "csv=p=0", folder + "/" + segment.uri])
                #expect(first.stdout.split(separator: "\n").first?.hasPrefix("1,I") == true, "\(segment.uri): \(first.stdout)")
            }
        }

        @Test("Determinism: packaging the same source twice with one x264 thread gives byte-identical segments and playlists")
        func deterministic() throws {
            let first = Fixtures.newFolder("package-first")
            let second = Fixtures.newFolder("package-second")
            _ = try package(first, ["--encoder-threads", "1"])
            _ = try package(second, ["--encoder-threads", "1"])
            let names = try FileManager.default.contentsOfDirectory(atPath: first).sorted()
            #expect(names.count == 1 + 3 * 6)
            #expect(names == (try FileManager.default.contentsOfDirectory(atPath: second).sorted()))
            for name in names {
                let a = try Data(contentsOf: URL(fileURLWithPath: first + "/" + name))
                let b = try Data(contentsOf: URL(fileURLWithPath: second + "/" + name))
                #expect(a == b, "\(name) differs")
            }
        }
    
        @Test("Live HLS: while the package is being made, hplayer plays the live playlist from nginx to its end, and the segments on disk stay within the window (3 listed, 1 kept after)")
        func livePackage() throws {
            let folder = Fixtures.newFolder("package-live")
            let nginx = try NginxServer(root: folder)
            let packager = try BackgroundProcess([Command.hplayer, "encode", "--from", "pattern:320x240@25", "-t", "12", "--hls", folder,
                                                  "--ladder", "240p:400k", "--hls-time", "1", "--live", "--hls-list-size", "3",
                                                  "--preset", "veryfast", "--quiet"])
            let master = folder + "/master.m3u8"
            let deadline = MonotonicClock.now() + 30
            while !FileManager.default.fileExists(atPath: master), packager.isRunning, MonotonicClock.now() < deadline {
                MonotonicClock.sleep(until: MonotonicClock.now() + 0.05)
            }
            let played = Fixtures.newFolder("package-live-played")
            let player = try BackgroundProcess([Command.hplayer, nginx.url("master.m3u8"), "--vo", "record:\(played)", "--ao", "null", "--no-status"])
            var mostSegments = 0
            while player.isRunning || packager.isRunning, MonotonicClock.now() < deadline + 60 {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                mostSegments = max(mostSegments, names.filter { $0.hasSuffix(".ts") }.count)
                MonotonicClock.sleep(until: MonotonicClock.now() + 0.05)
            }
            #expect(packager.wait(timeout: 10) == 0, "\(packager.stderr)")
            #expect(player.wait(timeout: 10) == 0, "\(player.stderr)")
            #expect(mostSegments >= 3 && mostSegments <= 4, "\(mostSegments) segments on disk at once")
            let playlist = try String(contentsOfFile: folder + "/240p.m3u8", encoding: .utf8)
            #expect(playlist.contains("#EXT-X-MEDIA-SEQUENCE:9\n") && playlist.hasSuffix("240p_11.ts\n#EXT-X-ENDLIST\n"), "\(playlist)")
            #expect(!playlist.contains("PLAYLIST-TYPE"))
            let pts = try String(contentsOfFile: played + "/video.tsv", encoding: .utf8).split(separator: "\n").map { Double($0.split(separator: "\t")[0])! }
            // The player joins at the first segment listed when it starts; it plays on to the end.
            #expect(pts.count >= 100, "\(pts.count) frames")
            #expect(zip(pts, pts.dropFirst()).allSatisfy { $0 < $1 })
            #expect(abs((pts.last ?? 0) - 12) < 0.2, "the last frame at \(pts.last ?? 0), of 12 s")
        }
    }
}
