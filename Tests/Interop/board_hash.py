#!/usr/bin/env python3
"""Computes a board's content hash from a `snapshot` line, exactly as Protocol.md ("Board hash") defines it, with
the Python standard library only.

Usage: board_hash.py < snapshot.jsonl

Reads one `snapshot` message (a JSON object with `state`) from stdin and prints `sha256:` and the lower-case hex
SHA-256 of the board's canonical text. The Swift tests compare it with the `hash` the server sends in `subscribed`,
so an independent client can check that its replica converged.
"""

import hashlib
import json
import sys


def string(s):
    """A JSON string: `"` `\\` newline, carriage return and tab escaped by name, other controls as \\u00xx."""
    out = ['"']
    for ch in s:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == '\\':
            out.append('\\\\')
        elif ch == '\n':
            out.append('\\n')
        elif ch == '\r':
            out.append('\\r')
        elif ch == '\t':
            out.append('\\t')
        elif code < 0x20:
            out.append('\\u%04x' % code)
        else:
            out.append(ch)
    out.append('"')
    return ''.join(out)


def optional(s):
    return 'null' if s is None else string(s)


def boolean(b):
    return 'true' if b else 'false'


def integer(n):
    return str(int(n))


def array(items, write):
    return '[' + ','.join(write(item) for item in items) + ']'


def obj(pairs):
    return '{' + ','.join(string(key) + ':' + value for key, value in pairs) + '}'


def column(c):
    wip = c.get('wip')
    limit = 'null' if wip is None else obj([('limit', integer(wip['limit'])), ('hard', boolean(wip['hard']))])
    pairs = [('id', string(c['id'])), ('name', string(c['name'])), ('wip', limit)]
    if c.get('in_progress') is not None:  # only a column that was marked
        pairs.append(('in_progress', boolean(c['in_progress'])))
    return obj(pairs)


def card(c):
    blocked = [('blocked_by', array(c['blocked_by'], string))] if c.get('blocked_by') else []  # only with blockers
    return obj([
        ('id', string(c['id'])),
        ('number', integer(c['number'])),
        ('column', string(c['column'])),
        ('rank', string(c['rank'])),
        ('title', string(c['title'])),
        ('description', string(c['description'])),
        ('description_seq', integer(c['description_seq'])),
        ('due', optional(c.get('due'))),
        ('labels', array(c['labels'], string)),
        ('assignees', array(c['assignees'], string)),
        ('milestone', optional(c.get('milestone'))),
        ('checklist', array(c['checklist'], lambda i: obj([
            ('id', string(i['id'])), ('text', string(i['text'])), ('done', boolean(i['done']))]))),
        ('comments', array(c['comments'], lambda m: obj([
            ('id', string(m['id'])), ('author', string(m['author'])), ('at', integer(m['at'])),
            ('text', string(m['text'])),
            ('edited_at', 'null' if m.get('edited_at') is None else integer(m['edited_at']))]))),
        ('closed', boolean(c['closed'])),
        ('archived', boolean(c['archived'])),
        ('ref', optional(c.get('ref'))),
    ] + blocked + [
        ('created_by', string(c['created_by'])),
        ('created_at', integer(c['created_at'])),
        ('updated_by', string(c['updated_by'])),
        ('updated_at', integer(c['updated_at'])),
    ])


def by_id(items):
    """Sorted by id, byte-wise (ids are ASCII, so code-point order is byte order)."""
    return sorted(items, key=lambda item: item['id'])


def canonical(state):
    pairs = [
        ('id', string(state['id'])),
        ('name', string(state['name'])),
        ('columns', array(state['columns'], column)),
        ('cards', array(by_id(state['cards']), card)),
        ('labels', array(state['labels'], lambda l: obj([
            ('id', string(l['id'])), ('name', string(l['name'])), ('color', string(l['color'].lower()))]))),
        ('milestones', array(state['milestones'], lambda m: obj([
            ('id', string(m['id'])), ('title', string(m['title'])), ('description', string(m['description'])),
            ('due', optional(m.get('due'))), ('closed', boolean(m['closed']))]))),
        ('members', array(by_id(state['members']), lambda m: obj([
            ('id', string(m['id'])), ('role', string(m['role'])), ('name', string(m['name']))]))),
        ('next_card_number', integer(state['next_card_number'])),
        ('purged', array(sorted(state['purged']), string)),
    ]
    if state.get('remind_hours') is not None:  # only a board that set its own lead time
        pairs.append(('remind_hours', integer(state['remind_hours'])))
    return obj(pairs)


def board_hash(state):
    return 'sha256:' + hashlib.sha256(canonical(state).encode('utf-8')).hexdigest()


def main():
    snapshot = json.loads(sys.stdin.readline())
    if snapshot.get('type') != 'snapshot':
        print('expected a snapshot line', file=sys.stderr)
        return 1
    print(board_hash(snapshot['state']))
    return 0


if __name__ == '__main__':
    sys.exit(main())
