import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What Linux's /proc says about a process: resident memory and CPU time.
enum ProcStats {
    /// `VmRSS` of `/proc/PID/status`, in KiB; nil when unreadable.
    static func rssKiB(_ pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        }
        return nil
    }

    /// User plus system CPU time of `/proc/PID/stat` (fields 14 and 15), in seconds; nil when unreadable.
    static func cpuSeconds(_ pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // After the command name's ")" the fields start at field 3 (state).
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The CPU time of every process now running, by process id, in seconds (`/proc/PID/stat`, each process's own
    /// precise count). The whole machine's `/proc/stat` is not used: it counts by timer tick, and misses much of a
    /// server's short bursts of work between ticks (on this project's 2-core VM it counted less than corkd's and
    /// cork-load's own times together).
    static func allProcesses() -> [Int32: Double] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [:] }
        var times: [Int32: Double] = [:]
        for name in names {
            guard let pid = Int32(name), let seconds = cpuSeconds(pid) else { continue }
            times[pid] = seconds
        }
        return times
    }

    /// The CPU time processes other than `excluded` spent between two `allProcesses()` samples: each process's
    /// growth, or its whole time if it started in between. Processes that ended in between are not counted.
    static func others(from start: [Int32: Double], to end: [Int32: Double], excluding excluded: Set<Int32>) -> Double {
        end.reduce(0) { sum, entry in
            excluded.contains(entry.key) ? sum : sum + max(0, entry.value - (start[entry.key] ?? 0))
        }
    }

    /// This process's id.
    static var ownPID: Int32 { getpid() }
}
