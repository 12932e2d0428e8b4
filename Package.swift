// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "HPlayer",
    products: [
        .library(name: "HPlayerKit", targets: ["HPlayerKit"]),
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
        // The few FFmpeg macros Swift cannot import, and the av_log bridge (needs va_list).
        .target(name: "CHPlayerShim", dependencies: ["CFFmpeg"]),
        .target(
            name: "HPlayerKit",
            dependencies: [
                "CFFmpeg", "CHPlayerShim",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "hplayer",
            dependencies: [
                "HPlayerKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "HPlayerTestSupport", dependencies: ["HPlayerKit"], path: "Tests/HPlayerTestSupport"),
        .testTarget(name: "HPlayerKitTests", dependencies: ["HPlayerKit", "HPlayerTestSupport", "CFFmpeg"]),
        .testTarget(name: "HPlayerIntegrationTests", dependencies: ["HPlayerKit", "HPlayerTestSupport", "CFFmpeg"]),
    ],
    swiftLanguageModes: [.v6]
)
