import CFFmpeg

extension AVRational {
    var seconds: Double { den == 0 ? 0 : Double(num) / Double(den) }
}

extension TimeBase {
    init(_ rational: AVRational) {
        self.init(num: rational.num, den: rational.den)
    }

    var rational: AVRational { AVRational(num: num, den: den) }
}
