#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ports on the loopback address for tests that need a port nobody listens on.
public enum LoopbackPort {
    /// A TCP port on 127.0.0.1 that nothing listens on right now: bound, read and closed again (something else may
    /// take it before the caller binds it).
    public static func closed() throws -> Int {
        let (fd, port) = try bound(listening: false)
        close(fd)
        return port
    }

    /// A socket listening on 127.0.0.1 at a free port, and the port; the caller accepts on it and closes it.
    public static func listening() throws -> (descriptor: Int32, port: Int) {
        try bound(listening: true)
    }

    private static func bound(listening: Bool) throws -> (descriptor: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound, !listening || listen(fd, 16) == 0 else {
            let failure = errno
            close(fd)
            throw TestFailure("cannot bind (or listen on) 127.0.0.1:0: errno \(failure)")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Whether something accepts a TCP connection on 127.0.0.1:`port` now (a loopback connect either succeeds or is
    /// refused at once; the connection is closed again).
    public static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) == 0 }
        }
    }
}
