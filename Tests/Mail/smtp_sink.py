"""A mail sink for the tests: an aiosmtpd SMTP server on 127.0.0.1 at a free port that writes each message it
receives to DIR/N.eml and prints `listening PORT` once it is up. It stops when its stdin closes (the test ends),
so it never outlives the test process.

    python3 smtp_sink.py DIR
"""
import asyncio
import os
import sys

from aiosmtpd.smtp import SMTP


class Sink:
    def __init__(self, directory):
        self.directory = directory
        self.count = 0

    async def handle_DATA(self, server, session, envelope):
        self.count += 1
        path = os.path.join(self.directory, "%d.eml" % self.count)
        with open(path + ".part", "wb") as f:
            f.write(b"X-Envelope-To: " + ",".join(envelope.rcpt_tos).encode() + b"\r\n")
            f.write(envelope.original_content or envelope.content)
        os.rename(path + ".part", path)
        return "250 OK"


async def main():
    directory = sys.argv[1]
    handler = Sink(directory)
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: SMTP(handler), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    print("listening %d" % port, flush=True)
    # Runs until stdin closes.
    await loop.run_in_executor(None, sys.stdin.read)
    server.close()


asyncio.run(main())
