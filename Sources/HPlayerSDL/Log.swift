import Logging

enum Log {
    static let window = Logger(label: "hplayer.window")
}
