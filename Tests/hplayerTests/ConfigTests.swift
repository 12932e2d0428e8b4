import Testing
@testable import hplayer

/// hplayer.conf in mpv.conf's syntax: parsed by table, then resolved into options with the
/// profiles and includes applied.
@Suite struct ConfigTests {
    typealias Setting = ConfigFile.Setting

    @Test func linesCommentsQuotesAndSections() {
        let text = """
            # a comment
            no-status
              speed = 1.5   # after a value
            --title="My # player"
            geometry='640x360'

            [night]
            volume=30
            [default]
            mute=yes
            """
        let config = ConfigFile(parsing: text, file: "c.conf")
        #expect(config.settings == [
            Setting(file: "c.conf", line: 2, option: "no-status", value: nil),
            Setting(file: "c.conf", line: 3, option: "speed", value: "1.5"),
            Setting(file: "c.conf", line: 4, option: "title", value: "My # player"),
            Setting(file: "c.conf", line: 5, option: "geometry", value: "640x360"),
            Setting(file: "c.conf", line: 10, option: "mute", value: "yes"),
        ])
        #expect(config.profiles == ["night": [Setting(file: "c.conf", line: 8, option: "volume", value: "30")]])
    }

    /// Takes every option but `bogus`, and `speed` only as a number.
    static func check(_ argument: String) -> String? {
        if argument.hasPrefix("--bogus") { return "Unknown option '--bogus'" }
        if argument.hasPrefix("--speed="), Double(argument.dropFirst("--speed=".count)) == nil { return "bad speed" }
        if argument.hasPrefix("--fullscreen=") || argument.hasPrefix("--no-status=") { return "a flag takes no value" }
        if argument.hasPrefix("--no-no-") { return "Unknown option" }
        return nil
    }

    @Test("Settings become options in order; flags given yes are set, given no are --no-FLAG (left out where there is none); a refused one is a warning with its file and line")
    func arguments() {
        let config = ConfigFile(parsing: "fullscreen=yes\nno-status=no\nbogus=1\nspeed=fast\nspeed=2\nloop-playlist\nfullscreen=no\n", file: "h.conf")
        let resolved = PlayConfig.resolve(config, profiles: [], read: { _ in nil }, check: Self.check)
        #expect(resolved.arguments == ["--fullscreen", "--speed=2", "--loop-playlist=inf", "--no-fullscreen"])
        #expect(resolved.warnings == ["h.conf:3: Unknown option '--bogus'", "h.conf:4: bad speed"])
    }

    @Test("Profiles: named in a file or on the command line, nesting, naming themselves, and unknown ones")
    func profiles() {
        let text = "speed=1\nprofile=a\n[a]\nspeed=2\nprofile=b\n[b]\ntitle=B\nprofile=a\n[c]\nspeed=3\n"
        let config = ConfigFile(parsing: text, file: "p.conf")
        let resolved = PlayConfig.resolve(config, profiles: ["c", "zz"], read: { _ in nil }, check: Self.check)
        #expect(resolved.arguments == ["--speed=1", "--speed=2", "--title=B", "--speed=3"])
        #expect(resolved.warnings == ["--profile: no profile named 'zz'"])
    }

    @Test("include reads another file there, with its profiles; one that cannot be read is a warning")
    func include() {
        let files = ["/more.conf": "volume=40\n[loud]\nvolume=100\n"]
        let config = ConfigFile(parsing: "include=/more.conf\nprofile=loud\ninclude=/gone.conf\n", file: "i.conf")
        let resolved = PlayConfig.resolve(config, profiles: [], read: { files[$0] }, check: Self.check)
        #expect(resolved.arguments == ["--volume=40", "--volume=100"])
        #expect(resolved.warnings == ["i.conf:3: include: /gone.conf cannot be read"])
    }

    @Test("--loop-playlist alone is inf; with a value after it, that value", arguments: [
        (["--loop-playlist"], ["--loop-playlist=inf"]),
        (["--loop-playlist", "a.mp4"], ["--loop-playlist=inf", "a.mp4"]),
        (["--loop-playlist", "2", "a.mp4"], ["--loop-playlist", "2", "a.mp4"]),
        (["a.mp4", "--loop-playlist", "no"], ["a.mp4", "--loop-playlist", "no"]),
        (["--loop-playlist=3"], ["--loop-playlist=3"]),
    ])
    func loopPlaylistAlone(arguments: [String], normalized: [String]) {
        #expect(PlayConfig.normalized(arguments) == normalized)
    }

    @Test("An option given twice: the later wins, so the command line, coming last, overrides the config")
    func laterWins() throws {
        let command = try PlayCommand.parse(["--speed=2", "--title", "config", "--speed", "1.5", "--title=line", "x.mp4"])
        #expect(command.speed == 1.5)
        #expect(command.title == "line")
    }
}
