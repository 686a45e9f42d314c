// Fuzz target: the server-message decoder (LineCoder.decodeServer), what every client runs on every line it
// receives. Its one-pass decode must agree with the reference (Foundation's JSONDecoder): the same message, or nothing
// where the reference refuses the line; and an accepted message must encode and decode back to itself.
import BoardWire

let coder = LineCoder()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = bytes(data, size)
    let reference = try? coder.decodeServerReference(line)
    let onePass = line.withUnsafeBufferPointer { LineCoder.decodeServerInOnePass($0) }
    if let onePass {
        require(onePass == reference, "one pass and the reference differ: \(onePass) vs \(String(describing: reference))")
    }
    guard let message = try? coder.decodeServer(line) else {
        require(reference == nil, "the entry point refused a line the reference decodes")
        return 0
    }
    require(message == reference, "the entry point and the reference differ")
    let encoded = coder.encode(message)
    do {
        let again = try coder.decodeServer(encoded)
        require(again == message, "round trip changed the message: \(message) -> \(again)")
    } catch {
        fatalError("the encoding of an accepted message is refused: \(error); \(String(decoding: encoded, as: UTF8.self))")
    }
    return 0
}
