import BoardWire
import NIOCore

/// Encodes server messages as ready-to-write lines.
enum Lines {
    static let coder = LineCoder()

    /// The message as one line with its `\n`.
    static func line(_ message: ServerMessage) -> ByteBuffer {
        ByteBuffer(bytes: coder.encodeLine(message))
    }

    /// An `error` line.
    static func error(_ error: WireError) -> ByteBuffer { line(.error(error)) }
}
