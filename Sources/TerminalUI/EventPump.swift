import Glibc

/// The blocking loop behind `Terminal.withEvents`: polls the input, the signal pipe and the wake pipe, and yields
/// decoded events until woken.
struct EventPump: Sendable {
    /// The terminal whose input is read and whose size is reported on SIGWINCH.
    let terminal: Terminal
    /// The read end of the signal self-pipe.
    let signalFD: Int32
    /// The read end of the pipe that ends the loop.
    let wakeFD: Int32
    /// How long a lone ESC waits for more bytes before it is reported as `.escape`.
    let escapeTimeoutMilliseconds: Int32

    /// Runs until the wake pipe is written, then finishes the stream.
    func run(_ continuation: AsyncStream<TerminalEvent>.Continuation) {
        defer { continuation.finish() }
        var decoder = KeyDecoder()
        var fds = [
            pollfd(fd: terminal.input, events: Int16(POLLIN), revents: 0),
            pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
        ]
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let timeout: Int32 = decoder.hasPending ? escapeTimeoutMilliseconds : -1
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                continuation.yield(.endOfInput)
                return
            }
            if ready == 0 {
                for event in decoder.flush() { continuation.yield(.key(event)) }
                continue
            }
            if fds[2].revents != 0 { return }
            if fds[1].revents != 0 { forwardSignals(&buffer, continuation) }
            if fds[0].revents != 0 {
                let count = read(terminal.input, &buffer, buffer.count)
                if count > 0 {
                    for event in decoder.decode(buffer[..<count]) { continuation.yield(.key(event)) }
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    for event in decoder.flush() { continuation.yield(.key(event)) }
                    continuation.yield(.endOfInput)
                    fds[0].fd = -1  // poll ignores negative descriptors
                }
            }
        }
    }

    /// Drains the signal pipe: one `.resize` for any number of SIGWINCH, then the other signals in order.
    private func forwardSignals(_ buffer: inout [UInt8], _ continuation: AsyncStream<TerminalEvent>.Continuation) {
        let count = read(signalFD, &buffer, buffer.count)
        guard count > 0 else { return }
        var resized = false
        for byte in buffer[..<count] {
            let signal = Int32(byte)
            if signal == SIGWINCH {
                resized = true
            } else {
                continuation.yield(.signal(signal))
            }
        }
        if resized, let size = terminal.size() { continuation.yield(.resize(size)) }
    }
}
