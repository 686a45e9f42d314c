/// Line bytes received and sent, terminators included (TLS records and TCP excluded).
struct ByteCounts: Sendable {
    var received = 0
    var sent = 0
}
