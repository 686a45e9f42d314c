import NIOCore
import NIOPosix
import NIOSSL
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Connection failures in words, for people: NIO's own descriptions are debug dumps
/// (`SingleConnectionFailure(target: …)`) or name an enum case.
public enum ConnectionWords {
    /// Why a session that was up ended, in words. NIO's own descriptions name an enum case (a server killed with
    /// `kill -9` shows as `uncleanShutdown`: its end closed without TLS's close_notify) or dump the errno.
    public static func sessionEnd(_ error: any Error) -> String {
        if case .uncleanShutdown? = error as? NIOSSLError {
            return "the server went away without closing the connection (it stopped abruptly, or the network cut it)"
        }
        switch error as? ChannelError {
        case .eof?, .ioOnClosedChannel?: return "the connection closed"
        default: break
        }
        if let io = error as? IOError {
            return io.errnoCode == ECONNRESET ? "the connection was reset" : String(cString: strerror(io.errnoCode))
        }
        return "\(error)"
    }

    /// A failed TCP connect in words: NIO's own description is a debug dump (`SingleConnectionFailure(target: …)`).
    /// `listener` names what should be listening, for the hint on a refused connection.
    public static func dialFailure(_ error: any Error, listener: String = "corkd") -> String {
        var causes: [any Error] = [error]
        if let connection = error as? NIOConnectionError {
            causes = connection.connectionErrors.map { $0.error }
            if causes.isEmpty, let dns = connection.dnsAError ?? connection.dnsAAAAError { causes = [dns] }
        }
        for cause in causes {
            if case .connectTimeout = cause as? ChannelError { return "timed out" }
            guard let io = cause as? IOError else { continue }
            switch io.errnoCode {
            case ECONNREFUSED: return "connection refused (nothing listens on that port: is \(listener) running there?)"
            case ETIMEDOUT: return "timed out"
            case EHOSTUNREACH, ENETUNREACH: return "no route to that host"
            default: return String(cString: strerror(io.errnoCode))
            }
        }
        return "\(causes.first ?? error)"
    }
}
