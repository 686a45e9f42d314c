import BoardTesting
import BoardTransport
import Foundation
import NIOConcurrencyHelpers
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

/// Runs `body`, failing with `TimeoutError` when it takes longer than `seconds`; the body is then cancelled and
/// left behind. A bound that had to wait for the body (a task group) would be none for a body that ignores
/// cancellation, as `closeFuture.get()` does: a run once hung for good in such a wait.
func withTimeout<T: Sendable>(
    _ seconds: Double, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let work = Task { try await body() }
    let answer = NIOLockedValueBox<CheckedContinuation<Result<T, any Error>, Never>?>(nil)
    let result = await withCheckedContinuation { continuation in
        answer.withLockedValue { $0 = continuation }
        let timer = Task {
            // Cancelled means the work finished first: only a sleep that ran its course is a timeout. (A `try?`
            // here once reported "timed out" for work that had finished, whenever the cancelled timer won the race
            // for the continuation.)
            do { try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000)) } catch { return }
            answer.withLockedValue { $0.take() }?.resume(returning: .failure(TimeoutError(seconds: seconds)))
        }
        Task {
            let outcome = await work.result
            timer.cancel()
            answer.withLockedValue { $0.take() }?.resume(returning: outcome)
        }
    }
    if case .failure(let error) = result, error is TimeoutError { work.cancel() }
    return try result.get()
}

/// The outcome of a child process.
struct ProcessResult: Sendable {
    var status: Int32
    var output: String
    var timedOut: Bool
}

/// Runs a program with stdin from /dev/null, stdout and stderr written together to a file, SIGKILLed after
/// `timeout` seconds.
///
/// The exit is learnt from `waitpid(WNOHANG)`, never from Foundation's `waitUntilExit()`: Foundation notices a
/// child's end through a descriptor the child inherits and a blocking `waitpid` on one shared thread, and a wait
/// with no bound there could hold the whole test run. The output goes to a file, not a pipe, so no descendant that
/// keeps the pipe open can block the read either.
func runProcess(_ path: String, _ arguments: [String], timeout: Double) async throws -> ProcessResult {
    try ProcessGate.requirePermit(for: path)
    let log = FileManager.default.temporaryDirectory.appendingPathComponent("run-\(UUID().uuidString).out")
    guard FileManager.default.createFile(atPath: log.path, contents: nil) else { throw POSIXError(.EIO) }
    defer { try? FileManager.default.removeItem(at: log) }
    let output = try FileHandle(forWritingTo: log)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardOutput = output
    process.standardError = output
    process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
    try process.run()
    try? output.close()
    let pid = process.processIdentifier
    var status: Int32 = 0
    let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1_000))
    var timedOut = false
    // Whichever notices the end first reaps the child: Foundation (then `isRunning` turns false) or this wait.
    var reaped = false
    while process.isRunning {
        if waitpid(pid, &status, WNOHANG) == pid {
            reaped = true
            break
        }
        if !timedOut, ContinuousClock.now >= deadline {
            timedOut = true
            kill(pid, SIGKILL)
        } else if timedOut, ContinuousClock.now >= deadline + .seconds(10) {
            throw POSIXError(.ETIMEDOUT)
        }
        try await Task.sleep(for: .milliseconds(20))
    }
    let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
    guard reaped else { return ProcessResult(status: process.terminationStatus, output: text, timedOut: timedOut) }
    // The wait status: the low 7 bits are the signal that ended it (0 for an exit), the next byte the exit code.
    let signal = status & 0x7f
    return ProcessResult(status: signal == 0 ? (status >> 8) & 0xff : 128 + signal, output: text, timedOut: timedOut)
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
