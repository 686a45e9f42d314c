// Fuzz target: the JSON byte pre-scan (BoardWire/PreScan) with the default limits and with tiny ones. It must never
// crash, must report an offset inside the line, and whatever it passes must also pass it again (it is pure).
import BoardWire

let defaults = JSONPreScan()
let tiny: JSONPreScan = {
    var limits = JSONPreScan.Limits()
    limits.maxDepth = 3
    limits.maxKeys = 4
    limits.maxStringBytes = 8
    limits.maxInteger = 1000
    return JSONPreScan(limits: limits)
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = bytes(data, size)
    for scan in [defaults, tiny] {
        let problem = scan.check(line)
        if let problem {
            require(problem.offset >= 0 && problem.offset <= line.count, "offset \(problem.offset) outside 0…\(line.count)")
        }
        require(scan.check(line) == problem, "the pre-scan is not deterministic")
    }
    // Tighter limits never pass what looser ones refuse.
    if defaults.check(line) != nil { require(tiny.check(line) != nil, "tiny limits passed what the defaults refused") }
    return 0
}
