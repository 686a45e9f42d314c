import BoardHistory
import BuildInfo
import Foundation

// `cork-history FILE…`: checks recorded soak histories (JSON lines of HistoryRecord, see Sources/BoardHistory) and
// prints every violation, then one JSON line: {"acked_ops":…,"resends":…,"deltas":…,"data_lost":…,"derived_checked":…,
// "violations":{…}}.
// Exit 0 when nothing was lost, 1 when something was, 2 when a file cannot be read.

let files = Array(CommandLine.arguments.dropFirst())
if files == ["--version"] {
    FileHandle.standardOutput.writeLine(BuildInfo.versionLine("cork-history"))
    exit(0)
}
guard !files.isEmpty else {
    FileHandle.standardError.writeLine("usage: cork-history FILE…  (recorded histories, one JSON record per line)")
    exit(2)
}
var records: [HistoryRecord] = []
for file in files {
    do {
        records += try HistoryLog.parse(try String(contentsOfFile: file, encoding: .utf8))
    } catch {
        FileHandle.standardError.writeLine("cork-history: \(file): \(error)")
        exit(2)
    }
}
let verdict = HistoryChecker().check(records)
for violation in verdict.violations.prefix(200) { FileHandle.standardError.writeLine("violation: \(violation)") }
let summary: [String: Any] = [
    "acked_ops": verdict.ackedOps, "resends": verdict.resends, "deltas": verdict.deltas, "data_lost": verdict.dataLost,
    "derived_checked": verdict.derivedChecked,
    "violations": Dictionary(uniqueKeysWithValues: verdict.byProperty.map { ($0.key.rawValue, $0.value) }),
]
if let data = try? JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys]) {
    FileHandle.standardOutput.writeLine(String(decoding: data, as: UTF8.self))
}
exit(verdict.dataLost == 0 ? 0 : 1)

extension FileHandle {
    /// Writes a line; an output that cannot be written is ignored (no trap on I/O).
    func writeLine(_ text: String) { try? write(contentsOf: Data((text + "\n").utf8)) }
}
