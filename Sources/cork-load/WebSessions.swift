import BoardTransport
import BoardWire
import Foundation
import Histogram
import NIOCore
import NIOPosix
import NIOWebSocket
import Synchronization

/// `cork-load --spawn --web-sessions N`: N browser tabs' web sessions (`/live`) on one board of `--cards-per-board`
/// cards, and one writer sending card moves at `--rate` over the protocol's WebSocket (`/v1`). Measured: the time
/// from a move's send to the diff that carries its seq reaching each web session (p50/p99/max over every session
/// and move), and corkd's resident memory per web session (RSS with every session on its board, minus RSS before
/// they opened, over N).
struct WebSessionsRun {
    let server: SpawnedServer
    let sessions: Int
    let cards: Int
    let rate: Double
    let duration: Int
    let progress: @Sendable (String) -> Void

    struct Report: Encodable {
        var sessions: Int
        var cards: Int
        var moves: Int
        var deliveries: Int
        var missing: Int
        var p50Ms: Double
        var p99Ms: Double
        var maxMs: Double
        var rssBeforeKiB: Int
        var rssAfterKiB: Int
        var kibPerSession: Double
        var pageBytes: Int
        /// Whether every page got every move, and the line saying so (as the other runs' `ok` and `verdict`).
        var ok = true
        var verdict = "ok"

        enum CodingKeys: String, CodingKey {
            case sessions, cards, moves, deliveries, missing, ok, verdict
            case p50Ms = "p50_ms"
            case p99Ms = "p99_ms"
            case maxMs = "max_ms"
            case rssBeforeKiB = "rss_before_kib"
            case rssAfterKiB = "rss_after_kib"
            case kibPerSession = "kib_per_session"
            case pageBytes = "page_bytes"
        }
    }

    func run() async throws -> Report {
        guard let web = ListenRecord.read(in: server.directory)?.webURL, let webPort = URL(string: web)?.port else {
            throw LoadError("spawn_failed", "corkd wrote no web_url in listen.json (started with --no-web?)")
        }
        let group = MultiThreadedEventLoopGroup.singleton
        let board = server.boards[0]
        let pageBytes = try await Self.pageBytes(port: webPort)

        // The writer fills the board.
        let writer = try await LineSocket.open(port: webPort, path: "/v1", headers: [], group: group)
        try await writer.send(#"{"type":"hello","version":1,"client":"cork-load/web","token":"\#(server.owner.token)"}"#)
        _ = try await writer.next(containing: #""type":"welcome""#)
        let started = Date()
        var mut = 0
        var cardIDs: [String] = []
        for start in stride(from: 0, to: cards, by: 100) {
            let batch = min(100, cards - start)
            for index in start..<(start + batch) {
                mut += 1
                let id = "w\(index)"
                cardIDs.append(id)
                let column = ["todo", "doing", "done"][index % 3]
                try await writer.send(
                    #"{"type":"op","board":"\#(board)","mut":\#(mut),"op":{"kind":"card.add","card":"\#(id)","column":"\#(column)","title":"Card \#(index) of the web benchmark","description":"Some words that a card might carry, to make it the size of a real one."}}"#)
            }
            for _ in 0..<batch { _ = try await writer.next(containing: #""type":"ack""#) }
        }
        progress(String(format: "web: %d cards on %@ in %.1f s", cards, board, Date().timeIntervalSince(started)))

        // The sessions open, each with its own user's cookie.
        progress("web: 12 s for corkd's memory trim, then its memory before the sessions")
        try await Task.sleep(for: .seconds(12))
        let rssBefore = ProcStats.rssKiB(server.pid) ?? 0
        let tokens = server.targets.dropFirst().prefix(sessions).map(\.token)
        guard tokens.count == sessions else { throw LoadError("spawn_failed", "only \(tokens.count) users for \(sessions) sessions") }
        var pages: [LineSocket] = []
        for (index, token) in tokens.enumerated() {
            let cookie = try await Self.cookie(port: webPort, token: token)
            let page = try await LineSocket.open(
                port: webPort, path: "/live", headers: [("Origin", "http://127.0.0.1:\(webPort)"), ("Cookie", cookie)], group: group)
            try await page.send(#"{"t":"open","board":"\#(board)"}"#)
            pages.append(page)
            if index % 50 == 49 {
                for page in pages.suffix(50) { _ = try await page.next(containing: #""t":"board""#, timeout: .seconds(120)) }
            }
        }
        for page in pages.suffix(pages.count % 50) { _ = try await page.next(containing: #""t":"board""#, timeout: .seconds(120)) }
        // corkd hands freed memory back every 10 s (MemoryTrim): measure after that, as an operator would see it.
        progress("web: \(sessions) web sessions open; 12 s for corkd's memory trim, then its memory with them")
        try await Task.sleep(for: .seconds(12))
        let rssAfter = ProcStats.rssKiB(server.pid) ?? 0
        progress("web: \(sessions) web sessions on the board; corkd RSS \(rssBefore) → \(rssAfter) KiB")
        for page in pages { page.record() }

        // Moves at the rate; each send time kept by mut, each seq by its ack.
        var sent: [Int: ContinuousClock.Instant] = [:]
        var seqOfMut: [Int: Int] = [:]
        let moves = Int(rate * Double(duration))
        let interval = Duration.seconds(1) / rate
        var next = ContinuousClock.now
        for index in 0..<moves {
            try await Task.sleep(until: next)
            next += interval
            mut += 1
            let card = cardIDs[(index * 7) % cardIDs.count]
            let column = ["todo", "doing", "done"][(index + 1) % 3]
            sent[mut] = .now
            try await writer.send(#"{"type":"op","board":"\#(board)","mut":\#(mut),"op":{"kind":"card.move","card":"\#(card)","to_column":"\#(column)"}}"#)
            while let ack = writer.poll(containing: #""type":"ack""#) {
                if let m = Self.number("mut", in: ack), let s = Self.number("seq", in: ack) { seqOfMut[m] = s }
            }
        }
        while seqOfMut.count < moves {
            let ack = try await writer.next(containing: #""type":"ack""#)
            if let m = Self.number("mut", in: ack), let s = Self.number("seq", in: ack) { seqOfMut[m] = s }
        }
        try await Task.sleep(for: .seconds(2))

        var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        var missing = 0
        var sentBySeq: [Int: ContinuousClock.Instant] = [:]
        for (m, s) in seqOfMut { sentBySeq[s] = sent[m] }
        for page in pages {
            let arrivals = page.diffArrivals()
            for seq in sentBySeq.keys {
                guard let at = arrivals[seq], let start = sentBySeq[seq] else {
                    missing += 1
                    continue
                }
                let micros = (at - start).components
                histogram.record(UInt64(max(0, micros.seconds * 1_000_000 + micros.attoseconds / 1_000_000_000_000)))
            }
        }
        for page in pages { await page.close() }
        await writer.close()
        func ms(_ value: UInt64) -> Double { Double(value) / 1000 }
        return Report(
            sessions: sessions, cards: cards, moves: moves, deliveries: Int(histogram.totalCount), missing: missing,
            p50Ms: ms(histogram.valueAtPercentile(50)), p99Ms: ms(histogram.valueAtPercentile(99)), maxMs: ms(histogram.max),
            rssBeforeKiB: rssBefore, rssAfterKiB: rssAfter,
            kibPerSession: Double(rssAfter - rssBefore) / Double(max(1, sessions)), pageBytes: pageBytes,
            ok: missing == 0, verdict: missing == 0 ? "ok" : "FAILED: \(missing) move(s) never reached a page")
    }

    static func number(_ key: String, in text: String) -> Int? {
        guard let range = text.range(of: "\"\(key)\":") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }

    /// The page's first load: every file it fetches, once, uncompressed.
    static func pageBytes(port: Int) async throws -> Int {
        var total = 0
        for path in ["/", "/app.js", "/style.css", "/icon.svg"] {
            let answer = try await http("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", port: port)
            if let split = answer.range(of: "\r\n\r\n") { total += answer[split.upperBound...].utf8.count }
        }
        return total
    }

    /// A user's session cookie (`POST /session`).
    static func cookie(port: Int, token: String) async throws -> String {
        let body = #"{"token":"\#(token)"}"#
        let answer = try await http(
            "POST /session HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)",
            port: port)
        for line in answer.split(separator: "\r\n") where line.lowercased().hasPrefix("set-cookie:") {
            if let value = line.dropFirst("set-cookie:".count).split(separator: ";").first {
                return value.trimmingCharacters(in: .whitespaces)
            }
        }
        throw LoadError("web_failed", "POST /session gave no cookie: \(answer.prefix(200))")
    }

    /// One HTTP/1.1 exchange on a fresh connection; returns what the server wrote before closing.
    static func http(_ request: String, port: Int) async throws -> String {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: request))
            var text = ""
            for try await chunk in inbound { text += String(buffer: chunk) }
            return text
        }
    }
}

/// A WebSocket whose text messages are read by a task of their own: they queue for `next`/`poll` until `record()`
/// is called, and from then on only the arrival time of each `diff`'s seq is kept (and acks still queue).
final class LineSocket: Sendable {
    struct State {
        var queue: [String] = []
        var recording = false
        var arrivals: [Int: ContinuousClock.Instant] = [:]
        var waiter: CheckedContinuation<Void, Never>?
        var ended = false
    }

    private let state = Mutex(State())
    private let outgoing: AsyncStream<WebSocketFrame>.Continuation
    private let task = Mutex<Task<Void, Never>?>(nil)

    private init(outgoing: AsyncStream<WebSocketFrame>.Continuation) { self.outgoing = outgoing }

    static func open(port: Int, path: String, headers: [(String, String)], group: any EventLoopGroup) async throws -> LineSocket {
        let channel = try await Transport.connectWebSocket(host: "127.0.0.1", port: port, path: path, headers: headers, group: group)
        let (toSend, sender) = AsyncStream.makeStream(of: WebSocketFrame.self)
        let socket = LineSocket(outgoing: sender)
        let reader = Task {
            try? await channel.executeThenClose { inbound, outbound in
                await withTaskGroup(of: Void.self) { tasks in
                    tasks.addTask {
                        do {
                            for try await frame in inbound {
                                switch frame.opcode {
                                case .text: socket.received(String(buffer: frame.unmaskedData))
                                case .ping: sender.yield(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData))
                                case .connectionClose: return
                                default: break
                                }
                            }
                        } catch {}
                    }
                    tasks.addTask { for await frame in toSend { try? await outbound.write(frame) } }
                    await tasks.next()
                    tasks.cancelAll()
                }
            }
            socket.end()
        }
        socket.task.withLock { $0 = reader }
        return socket
    }

    private func received(_ text: String) {
        let now = ContinuousClock.now
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.recording {
                if text.contains(#""t":"diff""#), let seq = WebSessionsRun.number("seq", in: text) { state.arrivals[seq] = now }
                if text.contains(#""type":"ack""#) { state.queue.append(text) }
            } else {
                state.queue.append(text)
            }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    private func end() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.ended = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func record() {
        state.withLock { state in
            state.recording = true
            state.queue.removeAll()
        }
    }

    func diffArrivals() -> [Int: ContinuousClock.Instant] { state.withLock { $0.arrivals } }

    func send(_ text: String) async throws {
        outgoing.yield(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text)))
    }

    /// The first queued message containing `marker` (earlier ones dropped), if one has arrived.
    func poll(containing marker: String) -> String? {
        state.withLock { state in
            while !state.queue.isEmpty {
                let text = state.queue.removeFirst()
                if text.contains(marker) { return text }
            }
            return nil
        }
    }

    /// Waits (bounded) for a message containing `marker`.
    func next(containing marker: String, timeout: Duration = .seconds(30)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let text = poll(containing: marker) { return text }
            let tick = Task { [weak self] in
                try? await Task.sleep(for: .milliseconds(50))
                self?.wake()
            }
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Bool in
                    if !state.queue.isEmpty || state.ended { return true }
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
            tick.cancel()
            if state.withLock({ $0.ended && $0.queue.isEmpty }) { break }
        }
        throw LoadError("web_failed", "no message with \(marker) within \(timeout)")
    }

    private func wake() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func close() async {
        outgoing.finish()
        await task.withLock { $0 }?.value
    }
}
