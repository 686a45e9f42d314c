import BoardTransport
import NIOCore

/// An authenticated (and by default subscribed) connection that does nothing but answer pings (and read what the server sends)
/// until the end of the run: what a user's open but quiet client costs the server.
struct IdleClient: Sendable {
    let index: Int
    let target: Target
    let plan: LoadPlan
    let gate: StartGate

    /// What an idle connection saw.
    struct Tally: Sendable {
        var connected = 0
        var completed = 0
        var errors: [String: Int] = [:]
        var bytes = ByteCounts()

        mutating func merge(_ other: Tally) {
            connected += other.connected
            completed += other.completed
            errors.merge(other.errors, uniquingKeysWith: +)
            bytes.received += other.bytes.received
            bytes.sent += other.bytes.sent
        }
    }

    /// Connects, subscribes unless told not to, tells `connected`, then holds the connection until the timeline's end.
    func run(group: any EventLoopGroup, connected: AsyncStream<Void>.Continuation) async -> Tally {
        var tally = Tally()
        var signalled = false
        do {
            let channel = try await Transport.connect(
                host: target.host, port: target.port, group: group, tls: target.tls, limits: .client)
            let raw = channel.channel
            try await channel.executeThenClose { inbound, outbound in
                let handshakeDeadline = raw.eventLoop.scheduleTask(in: .seconds(LoadPlan.connectTimeoutSeconds)) {
                    raw.close(promise: nil)
                }
                var lines = inbound.makeAsyncIterator()
                _ = try await Handshake.open(
                    target, clientID: "idle-\(plan.runID)-\(index)", subscribe: plan.idleSubscribes ? target.board : nil, lines: &lines,
                    outbound: outbound,
                    bytes: &tally.bytes)
                handshakeDeadline.cancel()
                tally.connected = 1
                connected.yield()
                signalled = true
                try await withThrowingTaskGroup(of: Void.self) { hold in
                    let gate = self.gate
                    hold.addTask {
                        let timeline = await gate.awaitStart().timeline
                        let now = NIODeadline.now().uptimeNanoseconds
                        if timeline.sendEnd > now { try await Task.sleep(nanoseconds: timeline.sendEnd - now) }
                        try? await outbound.write(Handshake.bye)
                        raw.close(promise: nil)
                    }
                    do {
                        while let line = try await lines.next() {
                            tally.bytes.received += line.readableBytes + 1
                            switch ServerLine(line).kind {
                            case .ping:
                                tally.bytes.sent += Handshake.pong.readableBytes
                                try await outbound.write(Handshake.pong)
                            case .error:
                                throw Handshake.error(line)
                            default:
                                continue
                            }
                        }
                    } catch {
                        // Our own close at the end of the hold may surface as an error; anything earlier is one.
                        guard let timeline = await gate.current(), NIODeadline.now().uptimeNanoseconds >= timeline.sendEnd
                        else { throw error }
                    }
                    hold.cancelAll()
                    guard let timeline = await gate.current(), NIODeadline.now().uptimeNanoseconds >= timeline.sendEnd else {
                        throw LoadError("closed", "the server closed an idle connection")
                    }
                }
                tally.completed = 1
            }
        } catch let error as LoadError {
            tally.errors[error.code, default: 0] += 1
        } catch let error as TransportError {
            tally.errors[error.wireCode?.rawValue ?? "connect_failed", default: 0] += 1
        } catch {
            tally.errors[signalled ? "connection_lost" : "connect_failed", default: 0] += 1
        }
        if !signalled { connected.yield() }
        return tally
    }
}
