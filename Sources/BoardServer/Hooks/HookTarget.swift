import Foundation
import NIOCore
import NIOPosix

/// Where a hook may POST, decided twice: the URL when the hook is added (`https://`, or `http://` to loopback when
/// the operator allows it), and before every attempt the addresses its host resolves to (SSRF: loopback, private,
/// link-local and other special ranges are refused unless the operator allows them). The attempt then connects to
/// the address that was checked, never to a second lookup's answer.
struct HookTarget: Hashable, Sendable {
    /// The URL as given.
    let url: String
    /// `https` or `http`.
    let scheme: String
    /// The host as written (brackets removed from an IPv6 literal).
    let host: String

    /// Longest URL accepted, in bytes.
    static let urlMaxBytes = 2048

    /// Checks the URL itself under `settings`; the reason when it is refused.
    static func parse(_ url: String, _ settings: HookSettings) -> Result<HookTarget, HookProblem> {
        guard url.utf8.count <= urlMaxBytes else { return .failure(HookProblem("field `url`: at most \(urlMaxBytes) bytes")) }
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            let rawHost = components.host, !rawHost.isEmpty
        else { return .failure(HookProblem("field `url`: not an absolute http(s) URL")) }
        guard components.user == nil, components.password == nil else {
            return .failure(HookProblem("field `url`: no user or password in the URL; the signature authenticates corkd"))
        }
        let host = rawHost.hasPrefix("[") && rawHost.hasSuffix("]") ? String(rawHost.dropFirst().dropLast()) : rawHost
        switch scheme {
        case "https":
            break
        case "http":
            guard settings.allowHTTPLoopback else {
                return .failure(HookProblem("field `url`: only https:// URLs (the operator has not allowed http:// to loopback)"))
            }
            guard Self.isLoopbackName(host) else {
                return .failure(HookProblem("field `url`: http:// is allowed only to 127.0.0.1, ::1 or localhost"))
            }
        default:
            return .failure(HookProblem(
                settings.allowHTTPLoopback
                    ? "field `url`: only https:// URLs, or http:// to 127.0.0.1, ::1 or localhost"
                    : "field `url`: only https:// URLs"))
        }
        let target = HookTarget(url: url, scheme: scheme, host: host)
        // A literal address is judged now; a name when it is resolved, before each attempt.
        if let address = try? SocketAddress(ipAddress: host, port: 0), let problem = target.refusal(of: address, settings) {
            return .failure(HookProblem("field `url`: \(problem)"))
        }
        return .success(target)
    }

    /// `localhost` or a loopback literal.
    static func isLoopbackName(_ host: String) -> Bool {
        let lower = host.lowercased()
        if lower == "localhost" || lower.hasSuffix(".localhost") { return true }
        guard let address = try? SocketAddress(ipAddress: host, port: 0) else { return false }
        return HookAddressRange.of(address) == .loopback
    }

    /// Why `address` may not be POSTed to under `settings`, or nil when it may.
    func refusal(of address: SocketAddress, _ settings: HookSettings) -> String? {
        let range = HookAddressRange.of(address)
        let text = address.ipAddress ?? "?"
        switch range {
        case .public:
            return scheme == "http" ? "http:// resolves to \(text), which is not loopback" : nil
        case .loopback:
            return settings.allowHTTPLoopback || settings.allowPrivateTargets
                ? nil : "\(host) is the loopback address \(text); refused unless the operator allows it"
        case .private:
            if scheme == "http" { return "http:// resolves to \(text), which is not loopback" }
            return settings.allowPrivateTargets ? nil : "\(host) resolves to the private address \(text); refused unless the operator allows private targets"
        case .special:
            return "\(host) resolves to \(text), a link-local, multicast or reserved address"
        }
    }

    /// Resolves the host (off the event loops) and checks every address; returns the first, to connect to.
    /// A name with any refused address is refused whole (a rebinding host may answer either).
    func resolve(_ settings: HookSettings) async -> Result<SocketAddress, HookProblem> {
        if let literal = try? SocketAddress(ipAddress: host, port: 0) {
            if let problem = refusal(of: literal, settings) { return .failure(HookProblem(problem)) }
            return .success(literal)
        }
        let addresses: [SocketAddress]
        do {
            addresses = try await HookResolver.addresses(of: host)
        } catch {
            return .failure(HookProblem("cannot resolve \(host): \(error)"))
        }
        guard let first = addresses.first else { return .failure(HookProblem("\(host) has no address")) }
        for address in addresses {
            if let problem = refusal(of: address, settings) { return .failure(HookProblem(problem)) }
        }
        return .success(first)
    }
}

/// The kinds of address a hook target may resolve to.
enum HookAddressRange: Hashable, Sendable {
    case `public`
    /// 127.0.0.0/8, ::1.
    case loopback
    /// 10/8, 172.16/12, 192.168/16, 100.64/10 (carrier-grade NAT), fc00::/7 (unique local).
    case `private`
    /// 0/8, 169.254/16 (link-local, cloud metadata), 224/4 and above (multicast, reserved), ::, fe80::/10, ff00::/8.
    case special

    /// The range `address` falls in (an IPv4-mapped IPv6 address as its IPv4 address).
    static func of(_ address: SocketAddress) -> HookAddressRange {
        switch address {
        case .v4(let v4):
            let value = UInt32(bigEndian: v4.address.sin_addr.s_addr)
            return of(ipv4: value)
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            return of(ipv6: bytes)
        default:
            return .special
        }
    }

    /// The range of an IPv4 address (host byte order).
    static func of(ipv4 value: UInt32) -> HookAddressRange {
        let a = value >> 24
        let b = (value >> 16) & 0xff
        switch a {
        case 127: return .loopback
        case 10: return .private
        case 172 where (16...31).contains(b): return .private
        case 192 where b == 168: return .private
        case 100 where (64...127).contains(b): return .private
        case 0, 224...255: return .special
        case 169 where b == 254: return .special
        default: return .public
        }
    }

    /// The range of an IPv6 address (16 bytes).
    static func of(ipv6 bytes: [UInt8]) -> HookAddressRange {
        guard bytes.count == 16 else { return .special }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
            return of(ipv4: UInt32(bytes[12]) << 24 | UInt32(bytes[13]) << 16 | UInt32(bytes[14]) << 8 | UInt32(bytes[15]))
        }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) { return bytes[15] == 1 ? .loopback : .special }
        if bytes[0] & 0xfe == 0xfc { return .private }
        if bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80 { return .special }
        if bytes[0] == 0xff { return .special }
        return .public
    }
}

/// Name resolution with the system resolver (`getaddrinfo`), on NIO's blocking-I/O thread pool so that no event
/// loop and no cooperative thread waits for DNS.
enum HookResolver {
    static func addresses(of host: String) async throws -> [SocketAddress] {
        try await NIOThreadPool.singleton.runIfActive {
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            hints.ai_family = AF_UNSPEC
            var result: UnsafeMutablePointer<addrinfo>?
            let status = getaddrinfo(host, nil, &hints, &result)
            guard status == 0, let first = result else {
                throw HookProblem(String(cString: gai_strerror(status)))
            }
            defer { freeaddrinfo(first) }
            var addresses: [SocketAddress] = []
            var next: UnsafeMutablePointer<addrinfo>? = first
            while let info = next {
                if let pointer = info.pointee.ai_addr {
                    switch Int32(info.pointee.ai_family) {
                    case AF_INET:
                        let v4 = UnsafeRawPointer(pointer).load(as: sockaddr_in.self)
                        addresses.append(SocketAddress(v4, host: host))
                    case AF_INET6:
                        let v6 = UnsafeRawPointer(pointer).load(as: sockaddr_in6.self)
                        addresses.append(SocketAddress(v6, host: host))
                    default:
                        break
                    }
                }
                next = info.pointee.ai_next
            }
            return addresses
        }
    }
}
