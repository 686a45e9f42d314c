// The framer target compiles BoardTransport's framing files without Crypto and NIOSSL; TransportError names
// Fingerprint only in a message, so a stand-in is enough here.
public struct Fingerprint: CustomStringConvertible {
    public var description: String
}
