import BoardTransport
import Foundation
import NIOCore
import NIOEmbedded
import NIOSSL

/// A buffer holding `string`'s UTF-8 bytes.
func buffer(_ string: String) -> ByteBuffer { ByteBuffer(string: string) }

/// The buffer's readable bytes as a string.
func text(_ buffer: ByteBuffer) -> String { String(buffer: buffer) }

/// Everything the channel has delivered inbound so far, as strings.
func inboundLines(_ channel: EmbeddedChannel) throws -> [String] {
    var lines: [String] = []
    while let line = try channel.readInbound(as: ByteBuffer.self) { lines.append(text(line)) }
    return lines
}

/// The error the channel caught, if any, as a `TransportError`.
func caughtTransportError(_ channel: EmbeddedChannel) -> TransportError? {
    do {
        try channel.throwIfErrorCaught()
        return nil
    } catch let error as TransportError {
        return error
    } catch {
        return nil
    }
}

struct TimeoutError: Error, CustomStringConvertible {
    var seconds: Double
    var description: String { "timed out after \(seconds) s" }
}

/// Runs `body`, failing with `TimeoutError` when it takes longer than `seconds` (the body is cancelled).
func withTimeout<T: Sendable>(
    _ seconds: Double, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            throw TimeoutError(seconds: seconds)
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

/// The outcome of a child process.
struct ProcessResult: Sendable {
    var status: Int32
    var output: String
    var timedOut: Bool
}

/// Runs a program with stdin from /dev/null, stdout and stderr captured together, killed after `timeout` seconds.
func runProcess(_ path: String, _ arguments: [String], timeout: Double) async throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
    try process.run()
    let deadline = Date().addingTimeInterval(timeout)
    var timedOut = false
    while process.isRunning {
        if Date() > deadline {
            timedOut = true
            process.terminate()
            process.waitUntilExit()
            break
        }
        try await Task.sleep(nanoseconds: 20_000_000)
    }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    return ProcessResult(
        status: process.terminationStatus, output: String(decoding: data, as: UTF8.self), timedOut: timedOut)
}

/// A freshly generated self-signed certificate, loaded for NIOSSL.
struct TestCertificate: Sendable {
    var certificatePEM: String
    var privateKeyPEM: String
    var fingerprint: Fingerprint
    var certificate: NIOSSLCertificate
    var key: NIOSSLPrivateKey

    init(hosts: [String] = ["localhost", "127.0.0.1", "::1"]) throws {
        let generated = try SelfSignedCertificate.generate(hosts: hosts)
        certificatePEM = generated.certificatePEM
        privateKeyPEM = generated.privateKeyPEM
        fingerprint = generated.fingerprint
        certificate = try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem)
        key = try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)
    }

    /// A server certificate issued elsewhere (by a test CA).
    init(certificate: NIOSSLCertificate, key: NIOSSLPrivateKey) throws {
        self.certificate = certificate
        self.key = key
        fingerprint = try Fingerprint(certificate: certificate)
        certificatePEM = ""
        privateKeyPEM = ""
    }

    func serverContext() throws -> NIOSSLContext {
        try TLSSetup.serverContext(certificateChain: [certificate], privateKey: key)
    }
}

/// A fresh temporary directory, removed after `body`.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("corkboard-transport-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url)
}

/// The result of an embedded future, if it has completed (callbacks on the embedded loop run inline).
func embeddedResult<T>(_ future: EventLoopFuture<T>) -> Result<T, any Error>? {
    var result: Result<T, any Error>?
    future.assumeIsolated().whenComplete { result = $0 }
    return result
}

/// Delivers `string` inbound without checking for a caught error (`writeInbound` would throw it and clear it).
func deliver(_ string: String, to channel: EmbeddedChannel) {
    channel.pipeline.fireChannelRead(buffer(string))
}
