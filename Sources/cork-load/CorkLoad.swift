import ArgumentParser
import Foundation

/// `cork-load`: simulated Corkboard clients over real TLS, with ack latency, throughput, a seq check and idle RSS.
@main
struct CorkLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cork-load",
        abstract: "Load-test a corkd server with simulated TLS clients speaking Protocol.md.",
        discussion: """
            Each active client is a TLS connection with its own client_id: hello, subscribe, then a closed loop \
            with --window ops in flight (chat, card.add, card.move; about 200 bytes each). Clients use the invite \
            URLs round-robin; the server allows connections_per_user (20) sessions and rate_ops_per_s (20) ops/s \
            per user, so give one URL per client for throughput runs (`corkd invite --user loadN`).

            Exits 1 when a subscriber saw a seq gap or repeat, or a client failed to connect or dropped out.
            """)

    @Option(name: .customLong("url"), help: "An invite URL (cork://HOST:PORT/BOARD?token=…&fp=…); repeatable.")
    var urls: [String] = []

    @Option(name: .customLong("urls-file"), help: "A file with one invite URL per line (blank lines and # comments skipped).")
    var urlsFile: String?

    @Option(help: "Active clients.")
    var clients: Int = 10

    @Option(help: "How many of the active clients subscribe to the board (default: all).")
    var subscribers: Int?

    @Option(help: "Measured seconds.")
    var duration: Int = 10

    @Option(help: "Seconds of load before measuring.")
    var warmup: Int = 2

    @Option(help: "Ops in flight per client.")
    var window: Int = 1

    @Option(name: .customLong("cards-per-client"), help: "Cards each client adds, then moves (0: chat only).")
    var cardsPerClient: Int = 5

    @Option(help: "Total ops/s to offer, split over the clients (default: an unpaced closed loop).")
    var rate: Double?

    @Option(help: "The board (default: the invite URL's).")
    var board: String?

    @Option(help: "Authenticated, subscribed connections that only answer pings, held for the run.")
    var idle: Int = 0

    @Flag(inversion: .prefixedNo, help: "Whether idle connections subscribe to the board (to tell the cost of a subscription from that of a connection).")
    var idleSubscribe = true

    @Option(name: .customLong("server-pid"), help: "corkd's process id: report its RSS and CPU time from /proc.")
    var serverPID: Int32?

    @Flag(help: "Print one JSON object instead of the table.")
    var json = false

    mutating func validate() throws {
        guard clients >= 0, idle >= 0, clients + idle > 0 else { throw ValidationError("--clients and --idle: at least one connection") }
        guard cardsPerClient >= 0 else { throw ValidationError("--cards-per-client must be at least 0") }
        guard window >= 1 else { throw ValidationError("--window must be at least 1") }
        guard duration >= 1, warmup >= 0 else { throw ValidationError("--duration must be at least 1 s, --warmup at least 0") }
        if let rate, rate <= 0 { throw ValidationError("--rate must be positive") }
        if let subscribers, subscribers < 0 || subscribers > clients { throw ValidationError("--subscribers must be 0…--clients") }
        if urls.isEmpty && urlsFile == nil { throw ValidationError("give --url or --urls-file") }
    }

    func run() async throws {
        var texts = urls
        if let urlsFile {
            let contents = try String(contentsOfFile: urlsFile, encoding: .utf8)
            texts += contents.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        }
        let targets: [Target]
        do { targets = try texts.map { text throws(LoadError) in try Target(url: text, board: board) } } catch {
            throw ValidationError("\(error)")
        }
        guard !targets.isEmpty else { throw ValidationError("no invite URLs") }
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        let plan = LoadPlan(
            targets: targets, clients: clients, subscribers: subscribers ?? clients, window: window, cardsPerClient: cardsPerClient,
            duration: duration, warmup: warmup, rate: rate, idle: idle, idleSubscribes: idleSubscribe, serverPID: serverPID,
            runID: String((0..<6).map { _ in alphabet.randomElement() ?? "x" }))
        let report = await LoadRun(plan: plan, progress: { line in
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }).run()
        print(json ? report.json() : report.summary.table)
        if !report.succeeded { throw ExitCode(1) }
    }
}
