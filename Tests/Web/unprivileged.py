"""Runs corkd and cork as nobody:nogroup through setpriv when the caller is root (as CI is), else as the caller.

Shared by Tests/Web/board_e2e.py and bench/web-dom-latency.py; the Swift tests do the same in
Sources/BoardTesting/Unprivileged.swift.
"""

import os


class Runner:
    """Turns a command line into one that runs unprivileged, and hands directories over to that user."""

    def __init__(self):
        self.active = os.geteuid() == 0
        if self.active:
            if not os.path.exists("/usr/bin/setpriv"):
                raise RuntimeError("running as root needs /usr/bin/setpriv (apt-get install util-linux)")
            import grp
            import pwd

            self.uid = pwd.getpwnam("nobody").pw_uid
            self.gid = grp.getgrnam("nogroup").gr_gid

    def command(self, argv):
        if not self.active:
            return list(argv)
        # setpriv execs the program, so the pid Popen returns is the program's own (kill -9 reaches corkd itself)
        return ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"] + list(argv)

    def hand_over(self, path):
        if not self.active:
            return
        for root, dirs, files in os.walk(path):
            os.lchown(root, self.uid, self.gid)
            for name in dirs + files:
                os.lchown(os.path.join(root, name), self.uid, self.gid)
