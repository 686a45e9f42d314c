import NIOCore

/// Refusing a connection the server has no room for: the documented `server_full` line, never
/// a reset in the middle of the TLS handshake.
///
/// The refusal is decided as soon as the connection is accepted, usually before its TLS handshake has finished.
/// TLS holds a write until the handshake completes, so the line is written, and only once the write has completed
/// (the handshake is done and the bytes are in the socket) is the connection closed; a close before that would
/// abort the handshake. A handshake that never completes is ended by the handshake timeout.
enum Refusal {
    /// Writes `line` once the TLS handshake allows it, then closes the connection.
    static func refuse(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, with line: ByteBuffer) async {
        // executeThenClose finishes the writer and closes the channel, as every accepted channel must.
        try? await connection.executeThenClose { _, _ in
            try await connection.channel.writeAndFlush(line)
        }
    }
}
