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

    /// CPU time spent by the whole machine (every process and the kernel), from the first line of `/proc/stat`, in
    /// seconds: user + nice + system + irq + softirq + steal. With the server's and cork-load's own time it shows
    /// how much of the machine other processes took during a run.
    static func machineBusySeconds() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = text.split(separator: "\n").first, line.hasPrefix("cpu ")
        else { return nil }
        let ticks = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard ticks.count >= 8 else { return nil }
        let busy = ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6] + ticks[7]
        return busy / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// This process's id.
    static var ownPID: Int32 { getpid() }
}
