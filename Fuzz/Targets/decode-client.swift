// Fuzz target: the client-message decoder (LineCoder.decodeClient: pre-scan, then the typed decode and validation),
// the entry point the server runs on every line. A line it accepts must encode and decode back to the same message.
// The field-by-field reader of the frequent messages (op, presence, ping, pong) is checked against the reference
// path (pre-scan + JSONDecoder): whatever it reads, the reference must decode to the same message.
import BoardWire

let coder = LineCoder()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = bytes(data, size)
    _ = LineCoder.messageType(of: line)
    if let read = line.withUnsafeBufferPointer({ coder.decodeFieldByField($0) }) {
        let reference = try? coder.decodeClientReference(line)
        require(reference == read, "field by field read \(read), the reference \(String(describing: reference))")
    }
    guard let message = try? coder.decodeClient(line) else { return 0 }
    let encoded = coder.encode(message)
    do {
        let again = try coder.decodeClient(encoded)
        require(again == message, "round trip changed the message: \(message) -> \(again)")
    } catch {
        fatalError("the encoding of an accepted message is refused: \(error); \(String(decoding: encoded, as: UTF8.self))")
    }
    return 0
}
