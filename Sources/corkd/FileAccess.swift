import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Whether another user could read a file, from its mode bits and those of the folders above it: what
/// `corkd config check` run as root can say about the user the service runs as.
enum FileAccess {
    /// Whether `user` (`uid`, primary group `gid`, and their other groups) may read `path`: every folder above it
    /// searchable, the file readable. Root may read anything.
    static func readable(_ path: String, uid: uid_t, gid: gid_t, user: String) -> Bool {
        guard uid != 0 else { return true }
        let groups = groupsOf(user, gid: gid)
        var folder = URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent()
        while true {
            guard allows(folder.path, bit: 0o1, uid: uid, groups: groups) else { return false }
            if folder.path == "/" { break }
            folder = folder.deletingLastPathComponent()
        }
        return allows(path, bit: 0o4, uid: uid, groups: groups)
    }

    /// Whether the owner, group or other bits that apply to `uid` grant `bit` (4 read, 1 search).
    private static func allows(_ path: String, bit: mode_t, uid: uid_t, groups: Set<gid_t>) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        if info.st_uid == uid { return info.st_mode & (bit << 6) != 0 }
        if groups.contains(info.st_gid) { return info.st_mode & (bit << 3) != 0 }
        return info.st_mode & bit != 0
    }

    /// `user`'s groups: its primary group and the ones /etc/group lists it in.
    private static func groupsOf(_ user: String, gid: gid_t) -> Set<gid_t> {
        var count: Int32 = 256
        var list = [gid_t](repeating: 0, count: Int(count))
        guard getgrouplist(user, gid, &list, &count) >= 0 else { return [gid] }
        return Set(list.prefix(Int(count))).union([gid])
    }
}
