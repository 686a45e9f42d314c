import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the real binaries (`corkd`, `cork`) as an ordinary user when the tests run as root, as CI does.
///
/// Root hides a whole class of defects: a socket option that needs `CAP_NET_ADMIN`, a file only root may write, a
/// directory nobody else can enter. So when this process is root, every end-to-end test starts the binaries through
/// `setpriv` as `nobody:nogroup` with no supplementary groups, in directories that user owns. Run as any other user,
/// the tests start the binaries as that user and this does nothing. There is no opt-out: if `setpriv` is missing
/// while root, spawning fails with a message that says so (`.ci/run` installs util-linux, which has it).
public enum Unprivileged {
    /// The user and group the binaries run as under root.
    public static let user = "nobody"
    public static let group = "nogroup"

    /// Whether this process is root, so the binaries must be started as `user`.
    public static var isActive: Bool { geteuid() == 0 }

    /// `user`'s uid and gid (nil when the user or group does not exist).
    static let ids: (uid: uid_t, gid: gid_t)? = {
        guard let password = getpwnam(user), let entry = getgrnam(group) else { return nil }
        return (password.pointee.pw_uid, entry.pointee.gr_gid)
    }()

    /// The program and arguments that run `executable arguments…` unprivileged when `isActive`, else unchanged.
    public static func command(_ executable: URL, _ arguments: [String]) throws -> (executable: URL, arguments: [String]) {
        guard isActive else { return (executable, arguments) }
        let setpriv = URL(fileURLWithPath: "/usr/bin/setpriv")
        guard FileManager.default.isExecutableFile(atPath: setpriv.path) else {
            throw TestFailure(
                "the tests run as root, so they start corkd and cork as \(user) through /usr/bin/setpriv, which is missing "
                    + "(apt-get install util-linux)")
        }
        guard ids != nil else { throw TestFailure("there is no user \(user) or group \(group) to run the binaries as") }
        let program = try reachable(executable)
        return (
            setpriv,
            ["--reuid=\(user)", "--regid=\(group)", "--clear-groups", "--", program.path] + arguments
        )
    }

    /// The same command as one line for `sh` (a tmux pane), with `environment` set through `env`.
    public static func shellCommand(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws -> String {
        let program = try reachable(executable)
        let assignments = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let (runner, words) = try command(URL(fileURLWithPath: "/usr/bin/env"), assignments + [program.path] + arguments)
        return ([runner.path] + words).map(shellQuote).joined(separator: " ")
    }

    /// The tool `name` on `PATH` that `user` can run: the first one reachable by others when root (a root-only
    /// `pyenv` shim is skipped for the system's `python3`), else the first one.
    public static func tool(_ name: String) throws -> URL {
        guard isActive else { return try SpawnedProcess.tool(name) }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path), isReachableByOthers(candidate.path) {
                return candidate
            }
        }
        throw TestFailure("no \(name) on PATH (\(path)) that \(user) may run; it is needed for this test")
    }

    /// Makes `directory` (and everything under it) belong to `user`, so the binaries can write there. A no-op when
    /// not root.
    public static func handOver(_ directory: URL) throws {
        guard isActive else { return }
        guard let (uid, gid) = ids else { throw TestFailure("there is no user \(user) or group \(group)") }
        var paths = [directory.path]
        if let walker = FileManager.default.enumerator(atPath: directory.path) {
            for case let relative as String in walker { paths.append(directory.appendingPathComponent(relative).path) }
        }
        for path in paths where lchown(path, uid, gid) != 0 {
            throw TestFailure("chown \(user):\(group) \(path): errno \(errno)")
        }
    }

    /// `file` itself when `user` can reach it (or when not root); otherwise a link to it (a copy across file
    /// systems) in a directory of this process's that `user` can reach, removed when the process exits. A clone under
    /// a 0700 home directory is the usual reason. For one of the project's binaries, its siblings (`cork*`) are
    /// staged with it, since `cork-load --spawn` starts the `corkd` next to itself. Use it for paths handed to the
    /// binaries too (a script, `CORK=…`).
    public static func reachable(_ file: URL) throws -> URL {
        guard isActive, !isReachableByOthers(file.standardizedFileURL.path) else { return file }
        let directory = try stagingDirectory()
        let source = file.deletingLastPathComponent()
        let manager = FileManager.default
        let siblings = ((try? manager.contentsOfDirectory(atPath: source.path)) ?? [])
            .filter { $0.hasPrefix("cork") && manager.isExecutableFile(atPath: source.appendingPathComponent($0).path) }
        let names = file.lastPathComponent.hasPrefix("cork") ? Set(siblings + [file.lastPathComponent]) : [file.lastPathComponent]
        for name in names { try stage(source.appendingPathComponent(name), in: directory) }
        return directory.appendingPathComponent(file.lastPathComponent)
    }

    /// Links (or copies) `file` into `directory`, unless a staged copy is at least as new as the original.
    private static func stage(_ file: URL, in directory: URL) throws {
        let manager = FileManager.default
        let staged = directory.appendingPathComponent(file.lastPathComponent)
        if let original = try? manager.attributesOfItem(atPath: file.path)[.modificationDate] as? Date,
            let copy = try? manager.attributesOfItem(atPath: staged.path)[.modificationDate] as? Date, copy >= original
        {
            return
        }
        try? manager.removeItem(at: staged)
        if link(file.path, staged.path) != 0 { try manager.copyItem(at: file, to: staged) }
        chmod(staged.path, 0o755)  // a link shares the original's mode; a staged copy must be runnable by others
    }

    /// Whether every directory on the way to `path` is searchable by others and the file readable and executable
    /// (when it is executable at all) by them.
    static func isReachableByOthers(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IROTH != 0 else { return false }
        if info.st_mode & S_IXUSR != 0, info.st_mode & S_IXOTH == 0 { return false }
        var current = (path as NSString).deletingLastPathComponent
        while true {
            guard stat(current, &info) == 0, info.st_mode & S_IXOTH != 0 else { return false }
            if current == "/" || current.isEmpty { return true }
            current = (current as NSString).deletingLastPathComponent
        }
    }

    private static let staging: Result<URL, TestFailure> = {
        let directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("corkboard-test-bin-\(getpid())")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            chmod(directory.path, 0o755)
        } catch {
            return .failure(TestFailure("cannot create \(directory.path) for the test binaries: \(error)"))
        }
        atexit { try? FileManager.default.removeItem(atPath: "/tmp/corkboard-test-bin-\(getpid())") }
        return .success(directory)
    }()

    private static func stagingDirectory() throws -> URL { try staging.get() }

    static func shellQuote(_ word: String) -> String {
        let safe = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./=:@%+,")
        if !word.isEmpty && word.allSatisfy({ safe.contains($0) }) { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
