# What keeps corkd's heap resident: run inside gdb against a live corkd, e.g. 16 s after bench/idle-connections.py
# closed its connections (`--settle 16,120` leaves time):
#
#     gdb -p "$(pgrep -n corkd)" -batch -x bench/gdb-heap-walk.py
#
# Needs glibc's debug symbols (Debian: libc6-dbg) for `main_arena` and `tcache_key`. It walks every chunk of every
# glibc arena and prints, per arena and kind of block, how many blocks are in use and on how many pages; a kind is
# the symbol the block's first word points to (a Swift object's metadata, libdispatch's continuation vtables) or,
# failing that, its size class. Then, per thread, the blocks in its tcache (free, but kept by the thread) and the
# pages on which they are the only thing left. It only reads memory (no calls into the process).
#
# With CORK_HEAP_KINDS=FILE in gdb's environment it also writes every kind, summed over the arenas, one per line
# (`kind<TAB>blocks<TAB>bytes`), so that two moments of one process can be diffed (which kind grew between rounds).
import collections
import os
import struct

import gdb

inferior = gdb.selected_inferior()


def word(address):
    return struct.unpack('<Q', bytes(inferior.read_memory(address, 8)))[0]


symbols = {}


def symbol(pointer):
    if pointer not in symbols:
        name = None
        try:
            text = gdb.execute('info symbol 0x%x' % pointer, to_string=True)
            if 'No symbol' not in text:
                name = text.split(' in section')[0].split(' + ')[0].strip()
        except gdb.error:
            pass
        symbols[pointer] = name
    return symbols[pointer]


try:
    tcache_key = int(gdb.parse_and_eval('tcache_key'))
except gdb.error:
    tcache_key = None
main_arena = int(gdb.parse_and_eval('&main_arena'))
arenas, arena = [], main_arena
while True:
    arenas.append(arena)
    arena = int(gdb.parse_and_eval('((struct malloc_state *)0x%x)->next' % arena))
    if arena == main_arena:
        break
state_size = int(gdb.parse_and_eval('sizeof(struct malloc_state)'))
heap_mapping = [line.split()[0].split('-') for line in open('/proc/%d/maps' % inferior.pid) if line.rstrip().endswith('[heap]')]

kinds = collections.defaultdict(lambda: [0, 0, set()])  # (arena, kind) -> blocks, bytes, pages
live_pages = set()


def walk(start, end, name):
    chunk = start
    while chunk < end - 16:
        size = word(chunk + 8) & ~7
        if size < 32 or chunk + size > end:
            break
        following = chunk + size
        in_use = following < end - 8 and word(following + 8) & 1
        user = chunk + 16
        if in_use and not (tcache_key is not None and word(user + 8) == tcache_key):
            first = word(user)
            kind = (symbol(first) if first > 0x10000 else None) or 'size<=%d' % (1 << (size - 1).bit_length())
            entry = kinds[(name, kind)]
            entry[0] += 1
            entry[1] += size
            pages = range(chunk >> 12, ((following - 1) >> 12) + 1)
            entry[2].update(pages)
            live_pages.update(pages)
        chunk = following


for arena in arenas:
    top = int(gdb.parse_and_eval('((struct malloc_state *)0x%x)->top' % arena))
    if arena == main_arena:
        for low, _ in heap_mapping:
            walk(int(low, 16), top, 'main')
        continue
    heap = top & ~((64 << 20) - 1)
    while heap:
        size, previous = word(heap + 16), word(heap + 8)  # heap_info: ar_ptr, prev, size, mprotect_size
        first = (arena + state_size) if heap == arena & ~((64 << 20) - 1) else heap + 32
        walk((first + 15) & ~15, top if heap == top & ~((64 << 20) - 1) else heap + size, 'arena@%x' % heap)
        heap = previous

print('%-20s %-64s %7s %9s %6s' % ('arena', 'kind of block', 'blocks', 'bytes', 'pages'))
for (name, kind), (count, size, pages) in sorted(kinds.items(), key=lambda item: -len(item[1][2]))[:40]:
    print('%-20s %-64s %7d %9d %6d' % (name, kind[:64], count, size, len(pages)))
print('pages holding blocks in use: %d' % len(live_pages))
if os.environ.get('CORK_HEAP_KINDS'):
    # Every kind, summed over the arenas (`kind blocks bytes`), to diff two moments of one process.
    totals = collections.defaultdict(lambda: [0, 0])
    for (_, kind), (count, size, _) in kinds.items():
        totals[kind][0] += count
        totals[kind][1] += size
    with open(os.environ['CORK_HEAP_KINDS'], 'w') as out:
        for kind, (count, size) in sorted(totals.items(), key=lambda item: -item[1][1]):
            out.write('%s\t%d\t%d\n' % (kind, count, size))

print('\nper thread: blocks in its tcache, their pages, and the pages with nothing else in use')
lonely_pages = set()
for thread in inferior.threads():
    thread.switch()
    try:
        cache = int(gdb.parse_and_eval('(long)tcache'))
    except gdb.error:
        continue
    blocks, pages = 0, set()
    for size_class in range(64):
        entry, hops = word(cache + 128 + 8 * size_class) if cache else 0, 0
        while entry and hops < 64:
            blocks += 1
            pages.add(entry >> 12)
            stored = word(entry)
            entry = (entry >> 12) ^ stored if stored else 0  # safe-linking (glibc 2.32 and later)
            hops += 1
    alone = {page for page in pages if page not in live_pages}
    lonely_pages |= alone
    print('%-4d %-18s %5d blocks on %4d pages, %4d with nothing else' % (thread.num, thread.name, blocks, len(pages), len(alone)))
print('pages kept only by tcaches: %d' % len(lonely_pages))
