import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs `corkd serve` with glibc's per-thread cache of freed blocks (tcache) two blocks deep per size instead of
/// seven (issue 14, defect 5).
///
/// After connections close, the blocks each thread keeps in its tcache are blocks those connections freed, spread
/// over the heap: measured with gdb on the release build 16 s after 5,000 idle connections closed, the two event
/// loops' and the two worker threads' caches held about 800 blocks on some 470 pages that held nothing else, about
/// 1.8 MB of the 4.5 MB by which RSS stayed above its level at rest. Two deep, they pin about a third of that, and RSS
/// came back to within 8 % of the cold start in two rounds (11 % with the default of seven), with durable ops/s and
/// CPU per delivery unchanged within the run-to-run spread (README, "Idle connections").
///
/// glibc reads `GLIBC_TUNABLES` only when a process starts, so corkd starts itself again in the same process
/// (`execv` of its own executable, same pid, same arguments, descriptors and environment plus the setting, and
/// `CORKD_MALLOC_TUNED` naming it, so the second start knows). It leaves the environment alone when `GLIBC_TUNABLES`
/// already names `glibc.malloc.tcache_count` (the operator's own choice) or `CORKD_MALLOC_TUNING=off` is set; if the
/// exec fails, corkd serves without the setting.
enum MallocTuning {
    /// What corkd adds to `GLIBC_TUNABLES`.
    static let setting = "glibc.malloc.tcache_count=2"
    /// Set for the second start (glibc may rewrite `GLIBC_TUNABLES` in place as it reads it).
    static let marker = "CORKD_MALLOC_TUNED"

    /// The file this process runs, by its name: `ps`, `pgrep corkd` and the process's `comm` show the name exec was
    /// given (`/proc/self/exe` itself would make it "exe"); that link when the file is gone (replaced by an upgrade).
    static var executablePath: String {
        guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
            !path.hasSuffix(" (deleted)")
        else { return "/proc/self/exe" }
        return path
    }

    /// The `GLIBC_TUNABLES` to start again with, or nil to carry on as is.
    static func tunables(from environment: [String: String]) -> String? {
        if environment["CORKD_MALLOC_TUNING"] == "off" || environment[marker] != nil { return nil }
        guard let current = environment["GLIBC_TUNABLES"], !current.isEmpty else { return setting }
        if current.contains("glibc.malloc.tcache_count") { return nil }
        return current + ":" + setting
    }

    /// Starts corkd again with ``setting`` when ``tunables(from:)`` says so; returns only when it does not (or the
    /// exec failed).
    static func applyByRestarting() {
        #if canImport(Glibc)
        let environment = ProcessInfo.processInfo.environment
        guard let tunables = tunables(from: environment) else { return }
        setenv("GLIBC_TUNABLES", tunables, 1)
        setenv(marker, setting, 1)
        execv(executablePath, CommandLine.unsafeArgv)
        // Still here: the exec failed (no /proc, say). Serve without the setting, and leave no trace of it.
        unsetenv(marker)
        if let previous = environment["GLIBC_TUNABLES"] {
            setenv("GLIBC_TUNABLES", previous, 1)
        } else {
            unsetenv("GLIBC_TUNABLES")
        }
        #endif
    }
}
