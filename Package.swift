// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "HPlayer",
    products: [
        .library(name: "HPlayerKit", targets: ["HPlayerKit"]),
        .library(name: "HPlayerSDL", targets: ["HPlayerSDL"]),
        .library(name: "HPlayerIPC", targets: ["HPlayerIPC"]),
        .executable(name: "hplayer", targets: ["hplayer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // FFmpeg 5.1 from Debian 12's lib*-dev packages.
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev",
                              "libswscale-dev", "libswresample-dev", "libavfilter-dev"])]
        ),
        // SDL2 and SDL2_ttf from Debian's libsdl2-dev and libsdl2-ttf-dev: the desktop window and sound.
        // No pkg-config: sdl2.pc's -D_REENTRANT is a flag SwiftPM refuses (with a warning at
        // each build); the headers are found under /usr/include as <SDL2/…>.
        .systemLibrary(
            name: "CSDL2",
            providers: [.apt(["libsdl2-dev", "libsdl2-ttf-dev"])]
        ),
        // libcurl from Debian's libcurl4-openssl-dev: every network byte (IO/HTTPByteSource.swift).
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // libxml2 from Debian's libxml2-dev: MPEG-DASH manifests (DASH/MPDParser.swift).
        .systemLibrary(
            name: "CXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        // libass from Debian's libass-dev: subtitles drawn as their authors styled them
        // (Subtitle/SubtitleRenderer.swift), the same library Debian's mpv draws them with.
        .systemLibrary(
            name: "CASS",
            pkgConfig: "libass",
            providers: [.apt(["libass-dev"])]
        ),
        // SQLite from Debian's libsqlite3-dev: the disk cache's index (Cache/CacheStore.swift).
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // libdbus from Debian's libdbus-1-dev: MPRIS on the session bus (HPlayerMPRIS).
        .systemLibrary(
            name: "CDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
        ),
        // Typed setters for curl's variadic curl_easy_setopt and curl_easy_getinfo.
        .target(name: "CCurlShim", dependencies: ["CCurl"]),
        // libxml2 behind opaque pointers (its headers bring ICU's, which clash with Foundation's).
        .target(name: "CXMLShim", dependencies: ["CXML2"]),
        // The few FFmpeg macros Swift cannot import, and the av_log bridge (needs va_list).
        .target(name: "CHPlayerShim", dependencies: ["CFFmpeg"]),
        // libass's log callback (needs va_list).
        .target(name: "CASSShim", dependencies: ["CASS"]),
        .target(
            name: "HPlayerKit",
            dependencies: [
                "CFFmpeg", "CHPlayerShim", "CCurl", "CCurlShim", "CSQLite", "CXMLShim", "CASS", "CASSShim",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The sound server's latency for this process's stream, which SDL does not pass on.
        .target(name: "CPulseLatency", linkerSettings: [.linkedLibrary("pulse")]),
        // libasound's own error lines kept off stderr (the player says in one line what it lacks).
        .target(name: "CALSAQuiet"),
        // The desktop outputs and window: SDL2 video and sound, on-screen display, controls.
        .target(
            name: "HPlayerSDL",
            dependencies: [
                "HPlayerKit", "CSDL2", "CPulseLatency", "CALSAQuiet",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // mpv's JSON IPC on a Unix socket, so tools written for mpv drive HPlayer too.
        .target(name: "HPlayerIPC", dependencies: ["HPlayerKit"]),
        // MPRIS on the D-Bus session bus: the desktop's media keys and controls, one more front end
        // of the CommandRunner.
        .target(
            name: "HPlayerMPRIS",
            dependencies: ["HPlayerIPC", "HPlayerKit", "CDBus", .product(name: "Logging", package: "swift-log")]
        ),
        .executableTarget(
            name: "hplayer",
            dependencies: [
                "HPlayerKit", "HPlayerSDL", "HPlayerIPC", "HPlayerMPRIS",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The examples (Examples/README.md): HPlayerKit used as a library, through its public API
        // only; built with the rest so that they keep compiling.
        .executableTarget(name: "example-headless", dependencies: ["HPlayerKit"], path: "Examples/HeadlessPlayer"),
        .executableTarget(name: "example-window", dependencies: ["HPlayerKit", "HPlayerSDL"], path: "Examples/WindowPlayer"),
        .target(name: "HPlayerTestSupport", dependencies: ["HPlayerKit"], path: "Tests/HPlayerTestSupport"),
        .testTarget(name: "HPlayerKitTests", dependencies: ["HPlayerKit", "HPlayerTestSupport", "CFFmpeg", "CASS"]),
        .testTarget(name: "HPlayerSDLTests", dependencies: ["HPlayerSDL", "HPlayerKit"]),
        .testTarget(name: "HPlayerIPCTests", dependencies: ["HPlayerIPC", "HPlayerKit", "HPlayerTestSupport"]),
        .testTarget(name: "HPlayerMPRISTests", dependencies: ["HPlayerMPRIS", "HPlayerIPC", "CDBus"]),
        .testTarget(name: "hplayerTests", dependencies: ["hplayer", "HPlayerKit", "HPlayerSDL"]),
        .testTarget(name: "HPlayerIntegrationTests", dependencies: ["HPlayerKit", "HPlayerSDL", "HPlayerIPC", "HPlayerTestSupport", "CFFmpeg"]),
    ],
    swiftLanguageModes: [.v6]
)

// The fuzz targets (libFuzzer), only when scripts/fuzz.sh builds them with -sanitize=fuzzer:
// they have no main of their own, so an ordinary build leaves them out.
if Context.environment["HPLAYER_FUZZ"] != nil {
    package.targets += [
        .target(name: "CFuzzDriver", path: "Fuzz/CFuzzDriver"),
        .target(name: "FuzzSupport", dependencies: ["HPlayerKit", "CFuzzDriver", .product(name: "Logging", package: "swift-log")],
                path: "Fuzz/FuzzSupport"),
        .executableTarget(name: "FuzzMedia", dependencies: ["HPlayerKit", "FuzzSupport"], path: "Fuzz/FuzzMedia"),
        .executableTarget(name: "FuzzSubtitleText", dependencies: ["HPlayerKit", "FuzzSupport"], path: "Fuzz/FuzzSubtitleText"),
        .executableTarget(name: "FuzzIPCRequest", dependencies: ["HPlayerIPC", "FuzzSupport"], path: "Fuzz/FuzzIPCRequest"),
        .executableTarget(name: "FuzzHLSPlaylist", dependencies: ["HPlayerKit", "FuzzSupport"], path: "Fuzz/FuzzHLSPlaylist"),
        .executableTarget(name: "FuzzSegmentKeyFrame", dependencies: ["HPlayerKit", "FuzzSupport"], path: "Fuzz/FuzzSegmentKeyFrame"),
        .executableTarget(name: "FuzzOriginPolicy", dependencies: ["HPlayerKit", "FuzzSupport"], path: "Fuzz/FuzzOriginPolicy"),
        .executableTarget(name: "FuzzMPD", dependencies: ["HPlayerKit", "FuzzSupport"], path: "Fuzz/FuzzMPD"),
        .executableTarget(name: "FuzzSidx", dependencies: ["HPlayerKit", "FuzzSupport"], path: "Fuzz/FuzzSidx"),
        .executableTarget(name: "FuzzTextFragments", dependencies: ["HPlayerKit", "FuzzSupport"], path: "Fuzz/FuzzTextFragments"),
    ]
}
