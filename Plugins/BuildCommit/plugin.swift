import Foundation
import PackagePlugin

/// Writes `BuildCommit.swift` (the git commit the package is built from) before each build of the target that uses
/// it. The file is rewritten only when the commit changed, so an unchanged tree rebuilds nothing; outside a git
/// checkout (a source tarball) the commit is `unknown`.
@main
struct BuildCommit: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("generated")
        let script = """
            mkdir -p "$2"
            commit=$(git -C "$1" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
            printf '/// The git commit this binary was built from (generated at build time).\\nlet buildCommit = "%s"\\n' "$commit" > "$2/BuildCommit.swift.new"
            if cmp -s "$2/BuildCommit.swift.new" "$2/BuildCommit.swift"; then rm -f "$2/BuildCommit.swift.new"; else mv "$2/BuildCommit.swift.new" "$2/BuildCommit.swift"; fi
            """
        return [
            .prebuildCommand(
                displayName: "Recording the git commit",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "build-commit", context.package.directoryURL.path, output.path],
                outputFilesDirectory: output)
        ]
    }
}
