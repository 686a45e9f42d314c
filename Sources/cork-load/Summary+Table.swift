import Foundation

extension Summary {
    /// The figures as a small text table.
    var table: String {
        var rows: [(String, String)] = []
        let paced = rate.map { "paced at \(number($0)) ops/s in total" } ?? "closed loop"
        rows.append(("run", "\(clients) clients (\(subscribers) subscribed), window \(window), \(paced), \(durationS) s after \(warmupS) s warm-up"))
        rows.append(("server", "\(server), \(users) user(s)"))
        if clients > 0 {
            let size = boardCardsAtStart.map { "\($0) cards" } ?? "? cards"
            let seqText = boardSeqAtStart.map { "seq \($0)" } ?? "seq ?"
            rows.append(("board", "\(board) at the start: \(size), \(seqText); each client adds \(cardsPerClient) card(s), then moves them"))
        }
        if let limit = serverRateOpsPerS, clients > 0 {
            rows.append(("rate limit", "server allows \(limit) ops/s per user: ceiling \(limit * users) ops/s for \(users) user(s)"))
        }
        if clients > 0 {
            rows.append(("ops acked", "\(opsAcked)  (\(number(opsPerS)) ops/s)"))
            rows.append(("deliveries", "\(deliveries)  (\(number(deliveriesPerS)) /s)"))
            if let ack = ackMs {
                rows.append(("ack latency ms", "p50 \(ms(ack.p50))  p90 \(ms(ack.p90))  p99 \(ms(ack.p99))  p99.9 \(ms(ack.p99_9))  max \(ms(ack.max))"))
            }
            rows.append(("bytes", "in \(bytesIn)  out \(bytesOut) (lines, before TLS)"))
        }
        let codes = errors.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        rows.append(("errors", codes.isEmpty ? "none" : codes.joined(separator: "  ")))
        if clients > 0 {
            rows.append(("clients", "\(clientsConnected)/\(clients) connected, \(clientsCompleted)/\(clients) ran to the end"))
            rows.append((
                "seq check",
                "\(seq.subscribers) subscriber(s): \(seq.contiguous ? "contiguous" : "BROKEN on \(seq.clientsBroken)") (\(seq.gaps) gaps, \(seq.duplicates) duplicates)"
            ))
        }
        if cpu.serverS != nil || cpu.loadS != nil {
            var text = "server \(seconds(cpu.serverS)), cork-load \(seconds(cpu.loadS)) over \(durationS) s"
            if let perOp = cpu.serverUsPerOp { text += "; server \(number(perOp)) µs/op" }
            if let perDelivery = cpu.serverUsPerDelivery { text += ", \(number(perDelivery)) µs/delivery" }
            if let perDelivery = cpu.loadUsPerDelivery { text += "; cork-load \(number(perDelivery)) µs/delivery" }
            rows.append(("cpu", text))
            if let machine = cpu.machineS, let others = cpu.othersS {
                rows.append(("machine cpu", "\(seconds(machine)) busy in all, of which other processes \(seconds(others))"))
            }
        }
        if let idle {
            rows.append(("idle", "\(idle.connected)/\(idle.requested) connected, \(idle.heldToEnd) held to the end"))
            if let before = idle.rssBeforeKib, let after = idle.rssAfterKib {
                let each = idle.kibPerConnection.map { "\(number($0)) KiB per connection" } ?? "-"
                rows.append(("server RSS", "\(before) KiB before, \(after) KiB after: \(each)"))
            }
        }
        rows.append(("verdict", ok ? "ok" : "FAILED"))
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.1 }.joined(separator: "\n")
    }

    private func number(_ value: Double) -> String {
        value >= 100 ? String(Int(value.rounded())) : String(format: "%.2f", value)
    }

    private func ms(_ value: Double) -> String { String(format: "%.3f", value) }

    private func seconds(_ value: Double?) -> String {
        guard let value else { return "?" }
        return String(format: "%.2f s CPU (%.0f %%)", value, value / Double(max(1, durationS)) * 100)
    }
}
