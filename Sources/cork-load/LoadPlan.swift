/// Everything one cork-load run needs, as data; only `CorkLoad` reads the command line.
struct LoadPlan: Sendable {
    /// Who connects: publishers, then each board's subscribers, then the idle connections.
    struct Layout: Sendable, Equatable {
        enum Role: Equatable {
            /// Sends ops (to every board in turn) and does not subscribe.
            case publisher(Int)
            /// Subscribes to one board and only reads.
            case subscriber(board: Int, index: Int)
            /// Authenticated (and subscribed unless told not to), answers pings, nothing else.
            case idle(Int)
        }

        var boards: Int
        var subscribersPerBoard: Int
        var publishers: Int
        var idle: Int

        var connections: Int { publishers + boards * subscribersPerBoard + idle }

        /// The role of connection `index` (0 ..< `connections`).
        func role(of index: Int) -> Role {
            if index < publishers { return .publisher(index) }
            let rest = index - publishers
            if rest < boards * subscribersPerBoard {
                return .subscriber(board: rest / subscribersPerBoard, index: rest % subscribersPerBoard)
            }
            return .idle(rest - boards * subscribersPerBoard)
        }
    }

    var layout: Layout
    /// The accounts to connect as: connection `i` uses `targets[i % targets.count]`.
    var targets: [Target]
    /// The account of the convergence check (it subscribes to every board at the end); an owner or member of all.
    var checker: Target
    /// The boards' ids, `layout.boards` of them.
    var boards: [String]
    /// Ops in flight per publisher (closed loop).
    var window: Int
    /// Total ops per second to offer, split evenly over the publishers; nil for a closed loop.
    var rate: Double?
    /// What the publishers send.
    var mix: OpMix
    /// Cards each publisher keeps on each board before its adds turn into purges.
    var cardsPerBoard: Int
    /// Measured seconds, after `warmup`.
    var duration: Int
    /// Seconds of load before measuring.
    var warmup: Int
    /// Whether the idle connections subscribe to their board (the default) or only authenticate.
    var idleSubscribes: Bool
    /// The server's process id, to read its RSS and CPU time from /proc.
    var serverPID: Int32?
    /// A short random id that makes client ids and card ids unique to this run.
    var runID: String
    /// Most bytes of deltas a board's reference replica keeps for the replay at the end.
    var replayBytesMax: Int

    /// Connections that may be between TCP connect and `subscribed` at once (TLS handshakes are costly, and
    /// connections that have not said hello are capped per address).
    static let connectConcurrency = 32
    /// How long a client may take from connect to `subscribed`.
    static let connectTimeoutSeconds: Int64 = 30
    /// How long after the end of sending a client waits for its last acks, and subscribers for their last deltas.
    static let drainTimeoutSeconds: Int64 = 15

    /// The target of connection `index`.
    func target(_ index: Int) -> Target { targets[index % targets.count] }

    /// How a report names connection `index`: its client id, and which of the accounts given it used (the Nth
    /// `--url`, or the Nth URL of `--urls-file`) when there were several.
    func clientName(_ index: Int) -> String {
        targets.count > 1 ? "\(clientID(index)) (URL #\(index % targets.count + 1))" : clientID(index)
    }

    /// The client id of connection `index`: publishers end in `-p<N>`, which subscribers read off each delta.
    func clientID(_ index: Int) -> String {
        switch layout.role(of: index) {
        case .publisher(let p): "load-\(runID)-p\(p)"
        case .subscriber(let board, let s): "load-\(runID)-s\(board).\(s)"
        case .idle(let i): "idle-\(runID)-\(i)"
        }
    }
}
