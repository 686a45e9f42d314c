import Foundation

extension Summary {
    /// The figures as a small text table.
    var table: String {
        var rows: [(String, String)] = []
        let paced = rate.map { "paced at \(number($0)) ops/s in total" } ?? "closed loop, window \(window ?? 1)"
        rows.append((
            "run",
            "\(boards) board(s) × \(subscribersPerBoard) subscriber(s), \(publishers) publisher(s), \(paced); \(durationS) s after \(warmupS) s warm-up"
                + (measuredS < durationS ? " (stopped after \(measuredS) s measured)" : "")
        ))
        rows.append(("ops", "mix \(mix); each publisher keeps ≤ \(cardsPerBoard) cards per board (adds then purges)"))
        rows.append(("server", "\(server), \(users) user(s) logged in" + (serverRateOpsPerS.map { ", rate limit \($0) ops/s per user" } ?? "")))
        if publishers == 0 {
            rows.append(("ops acked", "none: no publishers (--publishers 0), so nothing was sent"))
        } else {
            rows.append(("ops acked", "\(opsAcked) in the measured \(measuredS) s  (\(number(opsPerS)) ops/s)"))
            let kinds = sent.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            let total = sent.values.reduce(0, +)
            rows.append(("ops sent", kinds.isEmpty ? "none" : "\(total) over the whole run, warm-up included: \(kinds)"))
            if slotsHeldBack > 0 {
                rows.append((
                    "ops not sent",
                    "\(slotsHeldBack) paced slot(s): the server held the publishers back (rate_limited, retry_after_ms)"
                ))
            }
            if slotsUnsent > 0 {
                rows.append((
                    slotsHeldBack > 0 ? "" : "ops not sent",
                    "\(slotsUnsent) paced slot(s) never sent: the publishers' windows stayed full until the end (the server "
                        + "answered too slowly for --rate \(rate.map(number) ?? "?"))"
                ))
            }
            if opsUnanswered > 0 {
                rows.append(("ops unanswered", "\(opsUnanswered): still in flight when the connections ended (in no latency figure)"))
            }
        }
        if subscribersPerBoard > 0 {
            rows.append(("deliveries", "\(deliveries)  (\(number(deliveriesPerS)) /s)"))
        }
        if let ack = ackMs { rows.append(("ack ms", latency(ack))) }
        if let fanout = fanoutMs {
            rows.append(("fan-out ms", latency(fanout) + (fanoutOverruns > 0 ? "  (\(fanoutOverruns) deliveries too far behind to time)" : "")))
        }
        rows.append(("bytes", "in \(bytesIn)  out \(bytesOut) (lines, before TLS)"))
        let codes = errors.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        rows.append(("errors", codes.isEmpty ? "none" : codes.joined(separator: "  ")))
        for (index, client) in failedClients.prefix(5).enumerated() {
            rows.append((index == 0 ? "failed clients" : "", client))
        }
        if failedClients.count > 5 { rows.append(("", "… and \(failedClients.count - 5) more (--json lists up to 100)")) }
        rows.append((
            "clients",
            "publishers \(publishersConnected)/\(publishers) connected, \(publishersCompleted) ran to the end; subscribers \(subscribersConnected)/\(boards * subscribersPerBoard) connected, \(subscribersCompleted) to the end"
        ))
        if subscribersPerBoard > 0 {
            rows.append((
                "seq check",
                "\(seq.subscribers) subscriber(s): \(seq.contiguous ? "contiguous" : "BROKEN on \(seq.clientsBroken)") (\(seq.gaps) gaps, \(seq.duplicates) duplicates)"
            ))
        }
        rows.append(("convergence", convergenceText))
        if cpu.serverS != nil || cpu.loadS != nil {
            var text = "server \(seconds(cpu.serverS)), cork-load \(seconds(cpu.loadS)) over \(measuredS) s"
            if let perOp = cpu.serverUsPerOp { text += "; server \(number(perOp)) µs/op" }
            if let perDelivery = cpu.serverUsPerDelivery { text += ", \(number(perDelivery)) µs/delivery" }
            if let perDelivery = cpu.loadUsPerDelivery { text += "; cork-load \(number(perDelivery)) µs/delivery" }
            rows.append(("cpu", text))
            if let machine = cpu.machineS, let others = cpu.othersS {
                rows.append(("machine cpu", "\(seconds(machine)) in all processes, of which other processes \(seconds(others))"))
            }
        }
        if let idle {
            rows.append(("idle", "\(idle.connected)/\(idle.requested) connected, \(idle.heldToEnd) held to the end"))
            if let before = idle.rssBeforeKib, let after = idle.rssAfterKib {
                let each = idle.kibPerConnection.map { "\(number($0)) KiB per connection" } ?? "-"
                rows.append(("server RSS", "\(before) KiB before, \(after) KiB after: \(each)"))
            }
        }
        rows.append(("verdict", verdictText))
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.1 }.joined(separator: "\n")
    }

    /// `ok`, or `FAILED` and the first thing that failed (the rest is in the table); a run the server rate-limited
    /// says so, since its figures are the limit's, not the server's.
    var verdictText: String {
        var text = ok ? "ok" : "FAILED" + (failure.map { ": \($0)" } ?? "")
        if slotsUnsent > 0 {
            text += ", RATE NOT REACHED: \(slotsUnsent) paced slot(s) were never sent ("
                + Self.unsentCause(publishers: publishers, completed: publishersCompleted) + ")"
        }
        if let limited = errors["rate_limited"], limited > 0 {
            text += ", RATE LIMITED: the server refused \(limited) op(s) with rate_limited; the figures are its per-user limit's "
                + "(raise corkd's --rate and --burst, or use --spawn)"
        }
        return text
    }

    /// Why paced slots were never sent: publishers whose connection ended (a node killed) sent nothing more, else
    /// the server's answers came too slowly to free the window. A killed node was blamed on slowness.
    static func unsentCause(publishers: Int, completed: Int) -> String {
        let lost = publishers - completed
        return lost > 0 ? "\(lost) of \(publishers) publisher(s) lost their connection" : "the server answered too slowly"
    }

    /// The first reason the run failed, in the order a reader should look: clients that did not connect or were cut
    /// off, then seqs, then convergence.
    var failure: String? {
        let subscribers = boards * subscribersPerBoard
        let clients = publishers + subscribers
        let connected = publishersConnected + subscribersConnected
        let completed = publishersCompleted + subscribersCompleted
        if connected < clients { return "\(clients - connected) of \(clients) client(s) did not connect" }
        if completed < clients {
            let codes = errors.filter { $0.key != "rate_limited" }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            return "\(clients - completed) of \(clients) client(s) lost their connection before the end"
                + (codes.isEmpty ? "" : " (\(codes.joined(separator: " ")))")
        }
        if let idle, idle.connected < idle.requested || idle.heldToEnd < idle.requested {
            return "\(idle.requested - min(idle.connected, idle.heldToEnd)) of \(idle.requested) idle connection(s) did not last"
        }
        if !seq.contiguous { return "seqs broken on \(seq.clientsBroken) subscriber(s)" }
        if !convergence.converged { return "convergence " + convergenceText }
        return nil
    }

    private var convergenceText: String {
        if let error = convergence.error { return "NOT CHECKED: \(error)" }
        let boardsOK = convergence.boards.filter(\.converged).count
        // The replicas of boards that could not be checked are not counted as matching or not.
        let checked = convergence.boards.filter { !$0.unchecked }
        let replicas = checked.reduce(0) { $0 + $1.subscribersMatching }
        let total = checked.reduce(0) { $0 + $1.subscribers }
        let unchecked = !convergence.converged && convergence.boards.allSatisfy { $0.converged || $0.unchecked }
        if subscribersPerBoard == 0, convergence.converged {
            return "nothing to compare: no subscribers (--subscribers-per-board 0)"
        }
        var text = convergence.converged ? "converged" : unchecked ? "NOT CHECKED" : "DIVERGED"
        text += ": \(boardsOK)/\(convergence.boards.count) board(s) replayed to the server's seq and hash, \(replicas)/\(total) replicas match"
        let notChecked = convergence.boards.count - checked.count
        if notChecked > 0 { text += " (\(notChecked) board(s) not checked)" }
        if let catchUp = convergence.catchUpS { text += String(format: "; caught up %.3f s after the publishers finished", catchUp) }
        if let behind = convergence.behindAtEnd { text += "; \(behind) subscriber(s) had not caught up when the wait for them ended" }
        if let problem = convergence.boards.first(where: { !$0.converged }) {
            text += "; \(problem.board): " + problem.problems.joined(separator: "; ")
        }
        return text
    }

    private func latency(_ value: Latency) -> String {
        "p50 \(ms(value.p50))  p90 \(ms(value.p90))  p99 \(ms(value.p99))  p99.9 \(ms(value.p99_9))  max \(ms(value.max))"
    }

    private func number(_ value: Double) -> String {
        value >= 100 ? String(Int(value.rounded())) : String(format: "%.2f", value)
    }

    private func ms(_ value: Double) -> String { String(format: "%.3f", value) }

    private func seconds(_ value: Double?) -> String {
        guard let value else { return "?" }
        return String(format: "%.2f s CPU (%.0f %%)", value, value / Double(max(1, measuredS)) * 100)
    }
}
