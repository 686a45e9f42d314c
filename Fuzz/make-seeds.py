#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target into Fuzz/Seeds/<target>/ (run by scripts/fuzz; files are not kept in
git). Seeds: every fenced `jsonl client` / `jsonl server` line of Protocol.md, and the hostile-input catalogue of
../shared/RELIABILITY.md (b2: framing and JSON hygiene; P1-P7) as bytes."""
import hashlib, os, re, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, ".build", "fuzz", "seeds")

protocol = open(os.path.join(root, "Protocol.md"), encoding="utf-8").read()
client, server = [], []
for side, body in re.findall(r"```jsonl (client|server)\n(.*?)```", protocol, re.S):
    lines = [l.encode() for l in body.splitlines() if l.strip()]
    (client if side == "client" else server).extend(lines)

# The hostile catalogue (RELIABILITY.md b2), as raw bytes.
hostile = [
    b"[" * 100_000,                                   # P2
    b'{"a":' * 1_000,                                 # P2
    b'{"type":"ping","x":' + b"[" * 17 + b"]" * 17 + b"}",
    b'{"type":"ping","req":"\xff"}',                   # P3 bare 0xFF
    b'{"type":"ping","req":"\xc0\xaf"}',               # P3 overlong
    b'{"type":"ping","req":"\xed\xa0\x80"}',           # P3 encoded surrogate
    b'{"type":"ping","req":"\\ud800"}',                # P3 lone surrogate escape
    b'{"type":"ping","req":"a\x00b"}',                 # P3 raw NUL
    b'\xef\xbb\xbf{"type":"ping"}',                    # P3 BOM
    b'{"type":"op","board":"main","mut":1e400,"op":{"kind":"chat","text":"x"}}',        # P4
    b'{"type":"op","board":"main","mut":123456789012345678901234567890,"op":{"kind":"chat","text":"x"}}',
    b'{"type":"op","board":"main","mut":-0,"op":{"kind":"chat","text":"x"}}',
    b'{"type":"op","board":"main","mut":1.0,"op":{"kind":"chat","text":"x"}}',
    b'{"type":"subscribe","board":"main","since":9007199254740993}',
    b'{"op":"move","op":"delete"}',                   # P5
    b'{"type":"op","board":"main","mut":1,"op":{"kind":"card.update","card":"a","card":"b"}}',
    b'{"type":"op","board":"main","mut":1,"op":{"kind":"nope"}}',                        # P6
    b'{"type":"op","board":"main","mut":1}',
    b'{"type":"op","board":"main","mut":"1","op":{"kind":"chat","text":"x"}}',
    b'{"type":"op","board":"main","mut":1,"op":{"kind":"chat","text":"x","author":"someone_else"}}',
    b'{"type":"op","board":"main","mut":1,"op":{"kind":"card.add","board":"other","card":"c1","column":"todo","title":"t"}}',
    b"x" * 70_000,                                    # P1 (one line past the cap, no newline)
    b"not json at all",                               # P7
    b'{"type":"ping"}\r\n{"type":"pong"}\n\n\r\n',     # framing: CRLF, empty lines
]

def save(target, items):
    directory = os.path.join(out, target)
    os.makedirs(directory, exist_ok=True)
    for item in items:
        name = hashlib.sha1(item).hexdigest()
        with open(os.path.join(directory, name), "wb") as f:
            f.write(item)

save("prescan", client + server + hostile)
save("decode-client", client + hostile)
save("decode-server", server)
# The framer: byte 0 picks the cap (0xFF: 4096), byte 1 the split; then a stream of lines.
stream = b"\n".join(client[:20]) + b"\n"
save("framer", [b"\xff\x07" + stream, b"\x10\x03" + stream, b"\x05\x01abc\r\ndefghij\n\r\n\nxy"]
     + [b"\xff\x01" + h + b"\n" for h in hostile if len(h) < 8000])
# The reducer: several op lines per input (the ops of Protocol.md's examples, in order).
ops = [l for l in client if b'"type":"op"' in l]
save("reducer", [b"\n".join(ops)] + [b"\n".join(ops[i:i + 8]) for i in range(0, len(ops), 4)] + ops)
# Keys: byte 0 picks the split; then terminal input.
keys = [b"hello", b"\x1b[A\x1b[B\x1b[C\x1b[D", b"\x1b[200~pasted\ntext\x1b[201~", b"\x1b", b"\x1bOP\x1b[15~",
        b"\x7f\x17\x01\x05\x15", "é👩‍💻🇩🇪".encode(), b"\x1b[1;5C\x1b[3~\x1b[H\x1b[F", b"\xc3", b"\x1b[<0;10;5M"]
save("keys", [bytes([i]) + k for i, k in enumerate(keys)])
save("line-editor", [b"\x00abc\x03\x05\x15\x06\x07", "\x20👩‍💻\x03\x04\x08".encode(), b"\x09\x10hello world\x08\x03"])
print(out)
