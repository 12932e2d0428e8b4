import Logging

enum Log {
    static let window = Logger(label: "hplayer.window")
    static let audio = Logger(label: "hplayer.audio")
}
