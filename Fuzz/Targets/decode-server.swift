// Fuzz target: the server-message decoder (LineCoder.decodeServer), what every client runs on every line it
// receives. A line it accepts must encode and decode back to the same message.
import BoardWire

let coder = LineCoder()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = bytes(data, size)
    guard let message = try? coder.decodeServer(line) else { return 0 }
    let encoded = coder.encode(message)
    do {
        let again = try coder.decodeServer(encoded)
        require(again == message, "round trip changed the message: \(message) -> \(again)")
    } catch {
        fatalError("the encoding of an accepted message is refused: \(error); \(String(decoding: encoded, as: UTF8.self))")
    }
    return 0
}
