// Corkboard's page: a thin view of the board the server computes (docs/web.md, "The /live channel").
// No framework, no build. Every user-written string reaches the DOM through textContent or value, never as HTML.

const COLOR_RE = /^#[0-9a-fA-F]{6}$/;
const ID_RE = /^[A-Za-z0-9_.-]{1,64}$/;
const FEED_MAX = 500;
const INBOX_MAX = 500; // inbox entries kept in the page (pushed ones beyond it drop the oldest)
const EDIT_ROLES = new Set(['owner', 'editor', 'bot']);
// The server's field limits in characters (Limits.swift: title_max, label names, checklist items): a field stops
// there instead of being refused after it is sent.
const TITLE_MAX = 200;
const LABEL_NAME_MAX = 40;
const ITEM_MAX = 200;
// The limits in UTF-8 bytes (Limits.swift): a longer text stays where it was typed, with a notice, and is not sent.
const DESC_MAX_BYTES = 16384;
const COMMENT_MAX_BYTES = 8192;
const CHAT_MAX_BYTES = 4096;

// The colour cork gives a new label called `name` (CorkApp's LabelPalette, which a test holds these to): GitHub's for
// well-known names, else a pick from the palette by the name's 64-bit FNV-1a hash, the same on every machine.
const LABEL_KNOWN = {
  bug: '#d73a4a', documentation: '#0075ca', docs: '#0075ca', duplicate: '#cfd3d7', enhancement: '#a2eeef',
  feature: '#a2eeef', 'good first issue': '#7057ff', 'help wanted': '#008672', invalid: '#e4e669', question: '#d876e3',
  wontfix: '#ffffff', security: '#b60205', performance: '#fbca04', test: '#0e8a16', tests: '#0e8a16', chore: '#c5def5',
};
const LABEL_PALETTE = ['#b60205', '#d93f0b', '#fbca04', '#0e8a16', '#006b75', '#1d76db', '#0052cc', '#5319e7',
  '#e99695', '#f9d0c4', '#fef2c0', '#c2e0c6', '#bfdadc', '#c5def5', '#bfd4f2', '#d4c5f9'];

function labelColorFor(name) {
  const key = name.trim().toLowerCase();
  if (Object.hasOwn(LABEL_KNOWN, key)) return LABEL_KNOWN[key];
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(key)) hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return LABEL_PALETTE[Number(hash % BigInt(LABEL_PALETTE.length))];
}

// ---------- DOM helpers ----------

const utf8Bytes = (text) => new TextEncoder().encode(text).length;

// Whether `text` is over `max` bytes, saying so when it is: nothing is sent, and the text stays to be shortened.
function overLimit(text, max, what) {
  const bytes = utf8Bytes(text);
  if (bytes <= max) return false;
  toast(`${what} is ${bytes.toLocaleString('en')} bytes and at most ${max.toLocaleString('en')} fit: it was not sent. ` +
    'Shorten it and try again.', 'error', 15000);
  return true;
}

// A field with a character limit (maxLength) cuts a longer paste: say so, instead of cutting it unseen.
function notePasteCut(field, what) {
  field.addEventListener('paste', (e) => {
    const pasted = e.clipboardData ? e.clipboardData.getData('text') : '';
    const room = field.maxLength - (field.value.length - (field.selectionEnd - field.selectionStart));
    if (pasted.length > room) toast(`${what} hold at most ${field.maxLength} characters: the pasted text was cut.`, 'info', 8000);
  });
}

const $ = (id) => document.getElementById(id);

// h('li', {class: 'x', text: userText, onclick: f}, child, 'text'): props are DOM properties, `text` is textContent,
// `on…` are listeners, names with a dash (aria-*, data-*) are attributes. Strings among the children become text nodes.
function h(tag, props, ...kids) {
  const el = document.createElement(tag);
  if (props) {
    for (const k of Object.keys(props)) {
      const v = props[k];
      if (v == null || v === false) continue;
      if (k === 'class') el.className = v;
      else if (k === 'text') el.textContent = v;
      else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
      else if (k.includes('-') || k === 'role') el.setAttribute(k, v === true ? 'true' : String(v));
      else el[k] = v;
    }
  }
  for (const kid of kids.flat()) {
    if (kid == null || kid === false) continue;
    el.append(kid instanceof Node ? kid : String(kid));
  }
  return el;
}

// A span of user text: isolated for bidi so an RTL override cannot spill into the page.
const utext = (tag, cls, text) => h(tag, { class: cls ? cls + ' u' : 'u', dir: 'auto', text: text ?? '' });
const sr = (text) => h('span', { class: 'sr', text });

function isTextField(el) {
  if (!el || el.nodeType !== 1) return false;
  if (el.isContentEditable) return true;
  const t = el.tagName;
  if (t === 'TEXTAREA' || t === 'SELECT') return true;
  if (t !== 'INPUT') return false;
  return !['button', 'checkbox', 'radio', 'submit', 'reset', 'color', 'range', 'file'].includes(el.type);
}

function reconcile(parent, nodes) {
  let cur = parent.firstChild;
  for (const n of nodes) {
    if (n === cur) { cur = cur.nextSibling; continue; }
    parent.insertBefore(n, cur);
  }
  while (cur) { const next = cur.nextSibling; cur.remove(); cur = next; }
}

function textOn(hex) {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const v = parseInt(hex.slice(i, i + 2), 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.179 ? '#000000' : '#ffffff';
}

function paint(el, color) {
  if (typeof color === 'string' && COLOR_RE.test(color)) {
    el.style.backgroundColor = color;
    el.style.color = textOn(color);
    el.style.borderColor = color;
  } else el.classList.add('nocolor');
  return el;
}

// Two capitals of a name; two members with the same pair get their first and last letters (bob BB, bot BT).
function pairOf(name) {
  const words = String(name).trim().split(/\s+/).filter(Boolean);
  if (words.length >= 2) return (Array.from(words[0])[0] + Array.from(words[1])[0]).toUpperCase();
  return Array.from(words[0] || '?').slice(0, 2).join('').toUpperCase();
}
function initials(name) {
  const pair = pairOf(name);
  if (!S.clash.has(pair)) return pair;
  const c = Array.from(String(name).replace(/\s+/g, ''));
  return (c[0] + c[c.length - 1]).toUpperCase();
}

// Today as the server counts days, in UTC: a card is overdue on the page exactly when `cork show` and the query
// `due:overdue` say so, whatever the browser's time zone.
function today() {
  const d = new Date();
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}`;
}

function clock(ms) {
  if (typeof ms !== 'number') return '';
  const d = new Date(ms);
  const p = (n) => String(n).padStart(2, '0');
  const t = `${p(d.getHours())}:${p(d.getMinutes())}`;
  return new Date().toDateString() === d.toDateString() ? t : `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${t}`;
}

function slug(name) {
  const s = String(name).toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40);
  return s || 'label';
}

// ---------- state ----------

const S = {
  lastMoves: new Map(), // card id → the last move this page sent for it (a refused one can be forced)
  me: null, // {user, name}
  role: 'viewer',
  boards: [],
  boardId: null, // the board shown
  wantBoard: null, // the board named in the URL
  seq: 0,
  meta: { id: '', name: '', labels: [], milestones: [], members: [] },
  memberById: new Map(), // S.meta.members by id
  clash: new Set(), // initials two members share
  metaVer: 0,
  columns: [], // [{id, name, wip?, in_progress?, cards: [Card]}], board order
  filter: { q: '', sent: '', cards: null, error: '' },
  presence: [],
  sel: { card: null, col: null },
  multi: new Set(),
  drag: null, // {card, fromCol, fromIndex, col, index, mode: 'pointer' | 'kbd'}
  detail: null, // card id shown in the panel
  feed: [],
  feedSeqs: new Set(), // the seqs of the entries in `feed`
  // connection
  ws: null,
  open: false,
  stopped: false,
  everOpen: false,
  retry: 0,
  retryAt: 0,
  retryTimer: 0,
  queue: [], // intents made while the connection was down, sent after it is back
  server: null, // last `status`
  resyncing: false,
  lastPresence: '',
  // the user's inbox (all their boards): shown once the server says it has one
  inbox: {
    available: false,
    unread: 0, // unread in the whole inbox, as the server last said (lowered at once by what the page marks read)
    entries: [], // newest first
    fresh: new Set(), // ids marked read since the panel opened: still shown as new while it is open
    loading: false,
    error: '',
    more: false, // older entries may be left on the server
    goto: null, // {board, card}: an entry of another board followed, opened once that board is shown
  },
};
const colEls = new Map(); // column id -> {el, name, count, note, list, add}
const cardEls = new Map(); // card id -> {card, key, sig, el}

const canEdit = () => EDIT_ROLES.has(S.role);

const GONE = 'That card is not on the board any more: archived (see Archived) or deleted.';
function cardById(id) {
  for (const col of S.columns) {
    const i = col.cards.findIndex((c) => c.id === id);
    if (i >= 0) return { card: col.cards[i], col, index: i };
  }
  return null;
}
const colById = (id) => S.columns.find((c) => c.id === id);
const member = (id) => S.memberById.get(id);
const memberName = (id) => { const m = member(id); return m && m.name ? m.name : String(id); };
// A present session's name: the member's display name as the board has it now, else what the server sent.
const personName = (s) => { const m = member(s.user); return String(m && m.name ? m.name : s.name || s.user || '?'); };
const labelById = (id) => S.meta.labels.find((l) => l.id === id);
const milestoneById = (id) => S.meta.milestones.find((m) => m.id === id);
const visible = (card) => !S.filter.cards || S.filter.cards.has(card.id);
// A column as the page keeps it, from the server's column (its cards apart).
const colView = (c, cards) => ({ id: c.id, name: c.name, wip: c.wip, in_progress: c.in_progress, cards });

// ---------- dependencies ----------

// Whether a blocked card is kept out of the column: `in_progress` when set, else true for `doing` only (Column.isInProgress).
const isInProgress = (col) => (typeof col.in_progress === 'boolean' ? col.in_progress : col.id === 'doing');
const lastColumnId = () => (S.columns.length ? S.columns[S.columns.length - 1].id : null);
// A card is done when it is closed or in the last column.
const isDone = (at) => !!at.card.closed || at.col.id === lastColumnId();

// The cards `card` still waits for, in number order, as Board.blockers(of:): those of its `blocked_by` that are on the
// page, not archived and not done. The page has no archived cards, so an id it does not know counts as resolved.
function blockersOf(card) {
  const ids = card && Array.isArray(card.blocked_by) ? card.blocked_by : [];
  const out = [];
  for (const id of ids) {
    const at = cardById(id);
    if (at && !at.card.archived && !isDone(at)) out.push(at.card);
  }
  return out.sort((a, b) => a.number - b.number);
}

// The cards of its `blocked_by` that are on the page and done (no longer holding it back), in number order.
function doneBlockersOf(card) {
  const ids = card && Array.isArray(card.blocked_by) ? card.blocked_by : [];
  const out = [];
  for (const id of ids) {
    const at = cardById(id);
    if (at && !at.card.archived && isDone(at)) out.push(at.card);
  }
  return out.sort((a, b) => a.number - b.number);
}

// The cards that wait for card `id` (their `blocked_by` names it), in number order, as Board.blocked(by:).
function blockedByCard(id) {
  const out = [];
  for (const col of S.columns) for (const c of col.cards) if (!c.archived && Array.isArray(c.blocked_by) && c.blocked_by.includes(id)) out.push(c);
  return out.sort((a, b) => a.number - b.number);
}

// `#2, #3, #7 +2`: the numbers of `cards`, the first few.
function numbers(cards, most = 3) {
  const shown = cards.slice(0, most).map((c) => `#${c.number}`).join(', ');
  return cards.length > most ? `${shown} +${cards.length - most}` : shown;
}

// What a card's badge depends on besides the card itself: its pending blockers (their numbers and titles, for the
// tooltip). Another card closing or moving into the last column changes it without changing the card.
function blockSig(card) {
  if (!card || !Array.isArray(card.blocked_by) || !card.blocked_by.length) return '';
  return blockersOf(card).map((b) => `${b.id}\u0000${b.number}\u0000${b.title}`).join('\u0001');
}

// ---------- connection ----------

function raw(msg) {
  if (S.ws && S.open && S.ws.readyState === WebSocket.OPEN) { S.ws.send(JSON.stringify(msg)); return true; }
  return false;
}

// An intent the user made: sent now, or kept and sent once the connection is back. A kept one shows at once
// (showQueued) and is kept in the tab's sessionStorage too, so that a reload while the server is away loses nothing.
function intent(msg) {
  if (raw(msg)) return;
  S.queue.push(msg);
  showQueued(msg);
  saveQueue();
  renderStatus();
}

const QUEUE_KEY = 'corkboard.queue';
const NOT_SENT_YET = 'That card is not on the server yet: it is added once the connection is back.';

// The queue as this tab keeps it: for the board and user it was made for, and only what was never sent (so that a
// reload sends each at most once). Left alone while a reload's queue waits for the welcome.
function saveQueue() {
  if (S.restoredQueue) return;
  try {
    if (S.queue.length) sessionStorage.setItem(QUEUE_KEY, JSON.stringify({ board: S.boardId, user: S.me && S.me.user, queue: S.queue }));
    else sessionStorage.removeItem(QUEUE_KEY);
  } catch { /* storage refused (private mode, full): the queue lives as long as the page */ }
}

// At start, what a reload left queued: the board it was made on is opened, and the welcome (which names the user)
// sends it (sendRestored). One for another board than the address names is dropped, and said.
function restoreQueue() {
  let saved = null;
  try { saved = JSON.parse(sessionStorage.getItem(QUEUE_KEY) || 'null'); } catch { saved = null; }
  if (!saved || !Array.isArray(saved.queue) || !saved.queue.length || !saved.board) return;
  if (S.wantBoard && S.wantBoard !== saved.board) { droppedRestored(saved, `for the board ${saved.board}`); return; }
  S.wantBoard = saved.board;
  S.restoredQueue = saved;
}

function sendRestored() {
  const saved = S.restoredQueue;
  if (!saved || !S.me) return;
  S.restoredQueue = null;
  if (saved.user !== S.me.user) { droppedRestored(saved, `made as ${saved.user}`); return; }
  const n = saved.queue.length;
  for (const m of saved.queue) intent(m);
  saveQueue();
  toast(`Sent ${n} change${n > 1 ? 's' : ''} made before the page was reloaded.`, 'ok');
}

function droppedRestored(saved, why) {
  try { sessionStorage.removeItem(QUEUE_KEY); } catch { /* nothing kept */ }
  const n = saved.queue.length;
  const were = n > 1 ? 'were' : 'was';
  toast(`${n} change${n > 1 ? 's' : ''} queued before the reload ${were} ${why}, and ${were} not sent.`, 'error');
}

// An intent queued while the connection is down, shown as if done, as the terminal client shows its own ops before
// the server confirms them: chat in the feed marked "not sent yet", a card's edit, move or addition on the board. The
// board the server sends when the connection is back replaces all of it.
function showQueued(msg) {
  const o = msg.t === 'op' ? msg.op : null;
  if (!o) return;
  if (o.kind === 'chat') {
    const list = $('feed-list');
    const li = feedEl({ kind: 'chat', own: true, at: Date.now(), user: S.me ? S.me.user : '', text: `<${S.me ? S.me.user : ''}> ${o.text}` });
    li.classList.add('queued');
    li.append(h('span', { class: 'fi-queued', text: ' · not sent yet' }));
    list.append(li);
    list.scrollTop = list.scrollHeight;
    return;
  }
  const at = o.card ? cardById(o.card) : null;
  if (o.kind === 'card.edit' && at) {
    const c = { ...at.card, queued: true };
    if (typeof o.title === 'string') c.title = o.title;
    if (typeof o.description === 'string') c.description = o.description;
    if ('due' in o) c.due = o.due || null;
    at.col.cards[at.index] = c;
  } else if (o.kind === 'card.move' && at && colById(o.to_column)) {
    at.col.cards.splice(at.index, 1);
    at.card = { ...at.card, queued: true };
    const to = colById(o.to_column);
    const after = o.after ? to.cards.findIndex((x) => x.id === o.after) : -1;
    const before = o.before ? to.cards.findIndex((x) => x.id === o.before) : -1;
    to.cards.splice(after >= 0 ? after + 1 : before >= 0 ? before : to.cards.length, 0, at.card);
  } else if (o.kind === 'card.add' && colById(o.column)) {
    S.queuedAdds = (S.queuedAdds || 0) + 1;
    colById(o.column).cards.push({ id: `~queued-${S.queuedAdds}`, number: '…', title: o.title, labels: [], assignees: [], queued: true });
  } else return;
  renderBoard();
  renderDetail();
}

// Another board, asked for by the picker, the address or an inbox entry. Only while connected: what the user does
// next is on the board then shown, and a switch kept for later would send it to the other board.
function openBoard(id) {
  // the session ended (a board that could not be opened): start again on the board asked for
  if (S.stopped) { location.hash = `board=${encodeURIComponent(id)}`; location.reload(); return true; }
  if (raw({ t: 'open', board: id })) { S.opening = id; return true; }
  renderBoardPicker();
  // the address names the board shown again, so that a reload or a copied link opens it
  if (new URLSearchParams(location.hash.slice(1)).get('board') === id && S.boardId) {
    history.replaceState(null, '', `#board=${encodeURIComponent(S.boardId)}`);
  }
  toast('Offline: the board can be changed once the connection is back.', 'info');
  return false;
}

function op(o) {
  if (o.kind !== 'chat' && !canEdit()) { toast('You can only read this board (your role is ' + S.role + ').', 'error'); return; }
  if (typeof o.card === 'string' && o.card.startsWith('~queued-')) { toast(NOT_SENT_YET, 'info'); return; }
  // A place next to a card not on the server yet is the column's end, where that card is added too.
  for (const k of ['after', 'before']) if (typeof o[k] === 'string' && o[k].startsWith('~queued-')) delete o[k];
  if (o.kind === 'card.move') S.lastMoves.set(o.card, o);
  intent({ t: 'op', op: o });
}

function connect() {
  if (S.stopped) return;
  clearTimeout(S.retryTimer);
  S.retryAt = 0;
  const ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/live');
  S.ws = ws;
  S.open = false;
  renderStatus();
  ws.addEventListener('open', () => {
    if (S.ws !== ws) return;
    S.open = true;
    // The server waits for this first message: it names the board (none: the first board the user may see).
    const board = S.boardId || S.wantBoard;
    raw(board ? { t: 'open', board } : { t: 'open' });
    const queued = S.queue.splice(0);
    for (const m of queued) raw(m);
    saveQueue();
    for (const li of document.querySelectorAll('#feed-list > .queued')) li.remove(); // the server's feed has them now
    if (S.filter.q) { S.filter.sent = S.filter.q; raw({ t: 'filter', q: S.filter.q }); }
    const sent = `${queued.length} queued change${queued.length > 1 ? 's' : ''}`;
    if (S.everOpen) toast(queued.length ? `Connection is back: sent ${sent}.` : 'Connection is back.', 'ok');
    S.everOpen = true;
    S.lastPresence = '';
    renderStatus();
  });
  ws.addEventListener('message', (e) => {
    if (S.ws !== ws || typeof e.data !== 'string') return;
    for (const line of e.data.split('\n')) {
      if (!line.trim()) continue;
      let m;
      try { m = JSON.parse(line); } catch { continue; }
      if (m && typeof m === 'object') handle(m);
    }
  });
  ws.addEventListener('close', () => {
    if (S.ws !== ws) return;
    S.ws = null;
    S.open = false;
    S.server = null;
    if (S.stopped) return;
    // A drag in progress goes on: offline its drop is queued like any other edit, and a retry that fails (every
    // few seconds while the server is down) must not drop the card from the user's hand.
    S.presence = []; // shown again when the server lists it
    renderPresence();
    scheduleReconnect();
  });
}

function scheduleReconnect() {
  const delay = Math.min(500 * 2 ** S.retry, 5000);
  S.retry++;
  S.retryAt = Date.now() + delay;
  S.retryTimer = setTimeout(async () => {
    if (S.retry >= 3) {
      // A cookie that stopped working cannot come back by retrying: say so instead of looping.
      try {
        const r = await fetch('/session', { credentials: 'same-origin', cache: 'no-store' });
        if (r.status === 401) { stop(); showInvite(true); return; }
      } catch { /* still down */ }
    }
    connect();
  }, delay);
  renderStatus();
}

function stop() {
  S.stopped = true;
  clearTimeout(S.retryTimer);
  if (S.ws) { const ws = S.ws; S.ws = null; try { ws.close(); } catch { /* closed */ } }
}

setInterval(() => { if (!S.open && S.retryAt) renderStatus(); }, 1000);

// ---------- server → page ----------

function handle(m) {
  switch (m.t) {
    case 'welcome':
      S.me = { user: String(m.user ?? ''), name: String(m.name || m.user || '') };
      if (m.role) S.role = m.role;
      S.boards = Array.isArray(m.boards) ? m.boards : [];
      S.retry = 0;
      renderBoardPicker();
      $('me').textContent = S.me.name;
      $('me').title = `Signed in as ${S.me.name} (${S.me.user})`;
      $('me').hidden = false;
      sendRestored();
      break;
    case 'board': loadBoard(m); break;
    case 'diff': applyDiff(m); break;
    case 'feed': addFeed(m); break;
    case 'presence':
      if (Array.isArray(m.sessions)) {
        S.presence = m.sessions;
      } else {
        // A change: sessions gone, then sessions joined or changed, kept in session order.
        const gone = new Set(Array.isArray(m.left) ? m.left : []);
        const set = Array.isArray(m.set) ? m.set : [];
        for (const s of set) gone.add(s.session);
        S.presence = S.presence.filter((s) => !gone.has(s.session)).concat(set);
        S.presence.sort((a, b) => (a.session < b.session ? -1 : a.session > b.session ? 1 : 0));
      }
      renderPresence();
      break;
    case 'status': S.server = m; renderStatus(); break;
    case 'rejected': rejected(m); break;
    case 'boards': S.boards = Array.isArray(m.boards) ? m.boards : S.boards; renderBoardPicker(); break;
    case 'filter': filterAnswer(m); break;
    case 'archived': renderArchived(Array.isArray(m.cards) ? m.cards : []); break;
    case 'inbox': inboxPage(m); break;
    case 'inbox.entry': inboxEntry(m); break;
    case 'inbox.read': inboxRead(m); break;
    case 'error': fatal(m); break;
    default: break;
  }
}

function loadBoard(m) {
  const b = m.board || {};
  const switched = b.id !== S.boardId;
  S.boardId = b.id;
  S.opening = null;
  S.seq = m.seq ?? 0;
  S.meta = { id: b.id, name: b.name ?? '', labels: b.labels || [], milestones: b.milestones || [], members: b.members || [] };
  S.memberById = new Map(S.meta.members.map((m) => [m.id, m]));
  // The pairs two members share, once per change of the members (not per avatar drawn).
  const seen = new Set();
  S.clash = new Set();
  for (const m of S.meta.members) { const p = pairOf(m.name || m.id); if (seen.has(p)) S.clash.add(p); else seen.add(p); }
  S.metaVer++;
  S.columns = (m.columns || []).map((c) => colView(c, (c.cards || []).slice()));
  S.resyncing = false;
  updateRole();
  if (S.drag && !cardById(S.drag.card)) endDrag(false);
  if (switched) {
    S.sel = { card: null, col: null };
    S.multi.clear();
    S.presence = [];
    if (S.drag) endDrag(false);
    if ($('detail').open) $('detail').close();
    if ($('archive').open) $('archive').close();
    cardEls.clear();
    for (const e of colEls.values()) e.el.remove();
    colEls.clear();
    S.wantBoard = b.id;
    if (S.filter.q) { S.filter.cards = null; S.filter.sent = S.filter.q; raw({ t: 'filter', q: S.filter.q }); }
    const want = '#board=' + encodeURIComponent(b.id);
    if (location.hash !== want) history.replaceState(null, '', location.pathname + location.search + want);
  }
  renderTitle();
  renderBoardPicker();
  renderPresence(); // the names of those present may have changed; it renders the board too
  renderDetail();
  if (S.detail) sendPresence({ state: 'viewing', card: S.detail }); // again after a reconnect
  const go = S.inbox.goto;
  if (go && go.board === b.id) { S.inbox.goto = null; if (go.card) openInboxCard(go.card); }
  if ($('inbox').open) renderInbox(); // which entries are cards of this board
}

// The tab's title: the board, after the unread count of the inbox.
function renderTitle() {
  const n = S.inbox.unread;
  document.title = (n > 0 ? `(${n}) ` : '') + (S.meta.name || S.boardId || 'Corkboard') + (S.boardId ? ' — Corkboard' : '');
}

function updateRole() {
  const me = S.me && member(S.me.user);
  if (me && me.role) S.role = me.role;
  document.body.classList.toggle('readonly', !canEdit());
}

class DiffMismatch extends Error {}
const fail = (why) => { throw new DiffMismatch(why); };

function applyDiff(m) {
  if (S.resyncing || !S.boardId) return;
  // The archive list, while open, follows the board: a card someone else restored or archived meanwhile.
  if ($('archive').open && !S.archiveAsk) S.archiveAsk = setTimeout(() => { S.archiveAsk = 0; raw({ t: 'archived' }); }, 300);
  const touched = new Set();
  let structural = false;
  try {
    // (1) remove deleted cards and the cards moves take away, per column, by descending old index
    const gone = new Map();
    const push = (map, k, v) => { if (!map.has(k)) map.set(k, []); map.get(k).push(v); };
    for (const [cid, ch] of Object.entries(m.changes || {})) for (const d of ch.deleted || []) push(gone, cid, { index: d.index, id: d.id });
    const moves = m.moves || [];
    const moveId = (mv) => (mv.card && typeof mv.card === 'object' ? mv.card.id : mv.card);
    for (const mv of moves) push(gone, mv.from_column, { index: mv.from_index, id: moveId(mv), move: true });
    const taken = new Map();
    const deleted = new Set();
    for (const [cid, list] of gone) {
      const col = colById(cid) || fail('no column ' + cid);
      list.sort((a, b) => b.index - a.index);
      for (const r of list) {
        const c = col.cards[r.index];
        if (!c || c.id !== r.id) fail(`card ${r.id} is not at ${cid}[${r.index}]`);
        col.cards.splice(r.index, 1);
        if (r.move) taken.set(r.id, c); else deleted.add(r.id);
      }
      touched.add(cid);
    }
    // (2) remove columns (removed and moved) by descending old index, insert (inserted and moved) ascending
    const cgone = [
      ...(m.removed_columns || []).map((r) => ({ index: r.index, id: r.id })),
      ...(m.moved_columns || []).map((r) => ({ index: r.from, id: r.id, move: true })),
    ].sort((a, b) => b.index - a.index);
    const movedCols = new Map();
    for (const r of cgone) {
      const col = S.columns[r.index];
      if (!col || col.id !== r.id) fail(`column ${r.id} is not at ${r.index}`);
      S.columns.splice(r.index, 1);
      if (r.move) movedCols.set(r.id, col);
      structural = true;
    }
    const cins = [
      ...(m.inserted_columns || []).map((i) => ({ index: i.index, col: colView(i.column, (i.column.cards || []).slice()) })),
      ...(m.moved_columns || []).map((r) => ({ index: r.to, col: movedCols.get(r.id) })),
    ].sort((a, b) => a.index - b.index);
    for (const i of cins) {
      if (i.index > S.columns.length || !i.col) fail('column insert out of range');
      S.columns.splice(i.index, 0, i.col);
      structural = true;
    }
    // (3) insert cards and moved-in cards by ascending new index
    const ins = new Map();
    for (const [cid, ch] of Object.entries(m.changes || {})) for (const a of ch.inserted || []) push(ins, cid, { index: a.index, card: a.card });
    for (const mv of moves) {
      const card = mv.card && typeof mv.card === 'object' ? mv.card : taken.get(mv.card);
      push(ins, mv.to_column, { index: mv.to_index, card });
    }
    for (const [cid, list] of ins) {
      const col = colById(cid) || fail('no column ' + cid);
      list.sort((a, b) => a.index - b.index);
      for (const a of list) {
        if (!a.card || !a.card.id || a.index > col.cards.length) fail('card insert out of range in ' + cid);
        col.cards.splice(a.index, 0, a.card);
      }
      touched.add(cid);
    }
    // (4) replace updated cards and columns where they are
    for (const c of m.updated || []) {
      const at = cardById(c.id);
      if (!at) { if (deleted.has(c.id)) continue; fail('updated card ' + c.id + ' is not on the board'); }
      at.col.cards[at.index] = c;
      touched.add(at.col.id);
    }
    for (const uc of m.updated_columns || []) {
      const i = S.columns.findIndex((c) => c.id === uc.id);
      if (i < 0) fail('updated column ' + uc.id + ' is not on the board');
      S.columns[i] = colView(uc, S.columns[i].cards);
      touched.add(uc.id);
    }
  } catch (e) {
    if (!(e instanceof DiffMismatch)) throw e;
    console.warn('diff does not fit, asking for the board again:', e.message);
    S.resyncing = true;
    raw({ t: 'resync' });
    return;
  }
  if (m.meta) {
    for (const k of ['name', 'labels', 'milestones', 'members']) if (k in m.meta) S.meta[k] = m.meta[k];
    S.metaVer++;
    updateRole();
    renderTitle();
    renderBoardPicker();
    structural = true;
  }
  if (Number.isInteger(m.seq) && m.seq >= S.seq) S.seq = m.seq;
  // Someone else moved the card being carried to another column: the drop would move it back unseen.
  const carried = S.drag && (m.moves || []).find((mv) => (mv.card && typeof mv.card === 'object' ? mv.card.id : mv.card) === S.drag.card);
  if (carried && carried.from_column !== carried.to_column) {
    const at = cardById(S.drag.card);
    const name = (colById(carried.to_column) || {}).name || carried.to_column;
    if (at) toast(`#${at.card.number} was moved to ${name} while you carried it: dropping still puts it where you hold it, Esc leaves it in ${name}.`, 'info', 10000);
  }
  const a = document.activeElement;
  const onBoard = !a || a === document.body || (a.classList && a.classList.contains('card'));
  if (structural) renderBoard();
  else {
    $('board').dataset.seq = String(S.seq);
    for (const id of touched) { const col = colById(id); if (col) renderColumn(col); }
    refreshBlocked(touched);
    afterRender();
  }
  // the selection (and the keyboard focus) follows its card wherever the diff put it
  if (onBoard && !document.querySelector('dialog[open]') && S.sel.card && document.activeElement !== a) focusSelection();
  if (S.drag && !cardById(S.drag.card)) endDrag(false);
  renderDetail();
  renderBulk();
}

function rejected(m) {
  const sent = D.descSent;
  if (m.code === 'conflict' && m.op === 'card.edit' && sent && m.card === sent.card) { descConflict(sent, m); return; }
  // a title edit refused because the card was renamed since (say while it waited offline): the same choice as when
  // the rename comes in during the edit, with the user's text, which the panel no longer shows
  const titled = S.titleSent;
  if (m.code === 'conflict' && m.op === 'card.edit' && titled && m.card === titled.card && cardById(titled.card)) {
    S.titleSent = null;
    titleConflict(cardById(titled.card).card, titled.text);
    return;
  }
  const move = m.op === 'card.move' && m.code === 'blocked' ? S.lastMoves.get(m.card) : null;
  // a blocked card may still be moved with a reason, which its history keeps (owners and editors)
  const force = move && !move.force && (S.role === 'owner' || S.role === 'editor')
    ? [{ label: 'Move anyway…', run: () => askForce(move, m.reason) }] : [];
  // A refused chat line, comment or checklist item goes back where it was typed (when that is still empty and usable
  // and, for a card's, its panel is still on that card), to be mended rather than typed again; else the notice
  // carries it, so that it is not lost (a comment queued offline by someone made a viewer meanwhile).
  const typed = S.sentText;
  let lost = '';
  if (typed && typed.kind === m.op && (typed.card === undefined || typed.card === m.card)) {
    S.sentText = null;
    const here = typed.card === undefined || S.detail === typed.card;
    if (here && !typed.field.value && !typed.field.disabled) {
      typed.field.value = typed.text;
      if (typed.kind === 'comment.add') D.cmDrafts.set(typed.card, typed.text);
    } else {
      lost = typed.text.length > 1000 ? typed.text.slice(0, 1000) + '…' : typed.text;
    }
  }
  const said = (m.reason || m.code || 'The server refused the change.') + (lost ? ` Your text: “${lost}”` : '');
  toast(said, 'error', force.length || lost ? 30000 : undefined, force);
  if (m.card && cardById(m.card)) {
    S.sel = { card: m.card, col: null };
    renderBoard();
    focusSelection();
  }
}

// Someone renamed a card this user was renaming: theirs is not replaced unseen. The notice gives both titles and
// offers to save this user's over theirs or keep theirs.
function titleConflict(card, mine) {
  const id = card.id;
  D.titleBase = card.title;
  toast(`#${card.number} was renamed to "${card.title}" while you edited it. Yours: "${mine}".`, 'error', 30000, [
    { label: 'Save mine', run: () => {
      const now = cardById(id);
      if (now) { S.titleSent = { card: id, text: mine }; op({ kind: 'card.edit', card: id, title: mine, base_title: now.card.title }); }
    }, focus: () => D.title },
    { label: 'Keep theirs', run: () => { D.titleBase = undefined; renderDetail(); }, focus: () => D.title },
  ]);
}

// Asks why a blocked card should move anyway (in the page, not a browser prompt, so it looks like the rest and can
// be cancelled with Esc); the move is sent again with the reason, which the card's history keeps.
function askForce(move, refusal) {
  const dlg = $('force');
  const card = cardById(move.card)?.card;
  const to = colById(move.to_column);
  $('force-h').textContent = `Move ${card ? `#${card.number}` : 'it'}${to ? ` to ${to.name}` : ''} anyway`;
  $('force-why').textContent = refusal || '';
  $('force-reason').value = '';
  dlg.onclose = () => {
    const reason = $('force-reason').value.trim();
    if (dlg.returnValue === 'move' && reason) op({ ...move, force: reason });
    dlg.onclose = null;
  };
  dlg.returnValue = '';
  dlg.showModal();
  $('force-reason').focus();
}

// Someone changed a card's description while this user edited it, and the server refused the edit (it was based on
// the older text). The user's text is not lost: it goes back into the open panel's box, and the notice offers to
// save it over the other one, as the terminal client's /keep does.
function descConflict(sent, m) {
  D.descSent = null;
  const card = cardById(sent.card)?.card;
  const label = card ? `#${card.number}` : 'the card';
  const open = D.dlg && D.dlg.open && detailCard() && detailCard().id === sent.card;
  // the user's text, shown in the box (and edited there) until they choose; renderDetail leaves the box alone
  D.descDraft = { card: sent.card, text: sent.text };
  if (open) D.desc.value = sent.text;
  // saved from the box once more (leaving it after an edit), the text replaces the other one on purpose
  if (card) D.descBase = card.description_seq;
  // The server's reason says the same as this sentence ("was changed by another edit since this one began"): not
  // repeated.
  toast(`Someone else changed the description of ${label} while you edited it. ` +
    (open ? 'Your text is still in the box.' : ''), 'error', 30000, [
    { label: 'Save mine', run: () => {
      const draft = D.descDraft;
      D.descDraft = null;
      const c = cardById(sent.card)?.card;
      if (c && draft && draft.card === c.id) {
        D.descSent = { card: c.id, text: draft.text };
        op({ kind: 'card.edit', card: c.id, description: draft.text, base_seq: c.description_seq || 0 });
      }
    }, focus: () => D.desc },
    { label: 'Keep theirs', run: () => { D.descDraft = null; D.descShown = undefined; renderDetail(); }, focus: () => D.desc },
  ]);
}

function filterAnswer(m) {
  if ((m.q ?? '') !== S.filter.sent) return; // an answer to an older query
  if (m.error) { S.filter.error = String(m.error); S.filter.cards = null; }
  else { S.filter.error = ''; S.filter.cards = Array.isArray(m.cards) && S.filter.q ? new Set(m.cards) : null; }
  $('filter-error').textContent = S.filter.error;
  document.body.classList.toggle('filtering', !!S.filter.cards);
  renderBoard();
}

function fatal(m) {
  stop();
  const code = String(m.code || '');
  // the server's codes (Protocol.md's error codes), and the page's own for a session the server ended
  const titles = {
    token_revoked: 'Your access was revoked',
    revoked: 'Your access was revoked',
    auth_failed: 'This invite link does not work',
    token_expired: 'This invite link has expired',
    unauthenticated: 'You are signed out',
    forbidden: 'You may not open this board',
    not_found: 'No such board',
    unsupported_version: 'This page is out of date',
  };
  const newLink = 'Ask the board’s owner for a new invite link (corkd invite …) and open it.';
  const hints = {
    token_revoked: newLink,
    revoked: newLink,
    auth_failed: 'Its token is not one this server knows: copied only in part, or from another server. ' + newLink,
    token_expired: newLink,
    unauthenticated: 'Open the invite link you were given (corkd invite …).',
    forbidden: 'Ask the board’s owner to add you.',
    not_found: 'The board does not exist, or you are not a member of it.',
    unsupported_version: 'Reload the page.',
  };
  // a token that no longer works is forgotten, so that the page asks for an invite link next time instead of
  // trying it again
  if (['token_revoked', 'revoked', 'auth_failed', 'token_expired', 'unauthenticated'].includes(code)) {
    fetch('/session', { method: 'DELETE', credentials: 'same-origin' }).catch(() => {});
  }
  // what the user was typing in a card's panel and had not sent: kept to copy on the page that ends the session
  const drafts = [];
  if (D.dlg && D.dlg.open) {
    if (D.desc && D.desc.value !== (D.descShown ?? '') && D.desc.value.trim()) drafts.push(D.desc.value);
    if (D.cmInput && D.cmInput.value.trim()) drafts.push(D.cmInput.value);
  }
  const removed = code === 'not_found' && /no longer a member/.test(String(m.message || ''));
  const title = removed ? 'You are no longer a member of this board' : titles[code] || 'The session ended';
  const hint = removed ? 'Ask the board’s owner to add you again.' : hints[code] || '';
  showGate(title, m.message || code, hint, code === 'not_found' || code === 'unsupported_version');
  // the boards this user can still open, as a way on
  const others = code === 'not_found' ? S.boards.filter((b) => b.id !== (S.opening || S.boardId || S.wantBoard)) : [];
  if (others.length) {
    const links = others.map((b) => h('a', {
      href: `#board=${encodeURIComponent(b.id)}`, text: b.name || b.id,
      onclick: (e) => { e.preventDefault(); location.hash = `board=${encodeURIComponent(b.id)}`; location.reload(); },
    }));
    $('gate-hint').append(' Your other boards: ', ...links.flatMap((a, i) => (i ? [', ', a] : [a])), '.');
  }
  if (drafts.length) {
    $('gate-hint').after(
      h('p', { class: 'muted gate-draft', text: 'What you were typing, not saved, to copy:' }),
      h('textarea', { class: 'gate-draft', rows: 6, dir: 'auto', readOnly: true, 'aria-label': 'Your unsaved text', value: drafts.join('\n\n') }));
  }
}

// ---------- rendering: header ----------

function renderBoardPicker() {
  const sel = $('board-pick');
  const boards = S.boards.length ? S.boards : S.boardId ? [{ id: S.boardId, name: S.meta.name }] : [];
  const opts = boards.map((b) => h('option', { value: b.id, text: b.name ? `${b.name}` : b.id }));
  if (S.boardId && !boards.some((b) => b.id === S.boardId)) opts.unshift(h('option', { value: S.boardId, text: S.meta.name || S.boardId }));
  for (const o of opts) if (o.value === S.boardId && S.meta.name) o.textContent = S.meta.name;
  sel.replaceChildren(...opts);
  sel.value = S.boardId || '';
}

const STATE_WORD = { viewing: 'viewing', editing: 'editing', dragging: 'dragging', idle: 'idle' };

function renderPresence() {
  const box = $('people');
  const items = S.presence.map((s) => {
    // the user's own other sessions (another tab, cork in a terminal) are "you", not their name as if someone else
    const name = S.me && s.user === S.me.user ? 'you (elsewhere)' : personName(s);
    const who = personName(s);
    const c = s.card ? cardById(s.card) : null;
    const doing = STATE_WORD[s.state] || '';
    const what = c ? `${doing} #${c.card.number}` : s.state === 'viewing' ? 'on the board' : doing;
    const el = h('span', { class: 'person' + (s.away ? ' away' : '') + (s.state === 'idle' ? ' idle' : '') },
      h('span', { class: 'avatar', 'aria-hidden': 'true', text: initials(who) }),
      utext('span', 'pname', name),
      h('span', { class: 'pwhat', text: (s.away ? (s.note ? `◐ away: ${s.note} · ` : '◐ away · ') : '') + what }));
    el.title = `${name}: ${s.away ? (s.note ? `away (${s.note}), ` : 'away, ') : ''}${what}`;
    return el;
  });
  if (!items.length) items.push(h('span', { class: 'muted nobody', text: S.open ? 'nobody else here' : '' }));
  box.replaceChildren(...items);
  renderBoard();
}

function renderStatus() {
  const el = $('conn');
  const banner = $('banner');
  let text, cls;
  const q = S.queue.length;
  const queued = q ? ` · ${q} change${q > 1 ? 's' : ''} queued` : '';
  if (S.open) {
    const st = S.server;
    const pending = st && st.pending ? ` · ${st.pending} unconfirmed` : '';
    if (!st || st.state === 'live') { text = '● live' + pending; cls = 'live'; }
    else if (st.state === 'connecting') { text = '◌ connecting to the board…' + pending; cls = 'warn'; }
    else if (st.state === 'offline') { text = '⚠ server offline — reconnecting' + pending + (st.detail ? ` (${st.detail})` : ''); cls = 'bad'; }
    else { text = '■ stopped' + pending; cls = 'bad'; }
    banner.hidden = true;
  } else if (!S.everOpen) {
    text = '◌ connecting…'; cls = 'warn';
  } else {
    const secs = S.retryAt ? Math.max(0, Math.ceil((S.retryAt - Date.now()) / 1000)) : 0;
    text = `⚠ offline — reconnecting${secs ? ` in ${secs} s` : '…'}${queued}`;
    cls = 'bad';
    $('banner-text').textContent = `Connection lost — reconnecting${secs ? ` in ${secs} s` : '…'}. Your edits are kept and sent when it is back${q ? ` (${q} queued)` : ''}.`;
    banner.hidden = false;
  }
  el.textContent = text;
  el.className = 'conn ' + cls;
  document.body.classList.toggle('offline', S.everOpen && !S.open);
}

// ---------- rendering: board ----------

function renderBoard() {
  const board = $('board');
  board.dataset.boardId = S.boardId || '';
  board.dataset.seq = String(S.seq);
  const wanted = [];
  const alive = new Set();
  for (const col of S.columns) {
    alive.add(col.id);
    wanted.push(colEl(col).el);
    renderColumn(col);
  }
  for (const [id, e] of colEls) if (!alive.has(id)) colEls.delete(id);
  reconcile($('columns'), wanted);
  if (!S.sel.card && !S.sel.col) { const first = board.querySelector('.card'); if (first) first.tabIndex = 0; } // Tab reaches the board
  if (!S.columns.length) $('columns').replaceChildren(h('p', { class: 'muted empty-board', text: S.boardId ? 'This board has no columns.' : 'Loading…' }));
  afterRender();
  renderBulkColumns();
}

// The badges of the cards in columns the diff did not touch: a blocker closed, reopened, moved into or out of the
// last column, renamed or removed changes whether (and by what) another card is blocked.
function refreshBlocked(skip) {
  for (const col of S.columns) {
    if (skip.has(col.id)) continue;
    if (col.cards.some((c) => { const e = cardEls.get(c.id); return e && e.sig !== blockSig(c); })) renderColumn(col);
  }
}

function afterRender() {
  // drop cards that left the board from the caches and the marks
  const ids = new Set();
  for (const col of S.columns) for (const c of col.cards) ids.add(c.id);
  for (const id of cardEls.keys()) if (!ids.has(id)) cardEls.delete(id);
  for (const id of [...S.multi]) if (!ids.has(id)) S.multi.delete(id);
  if (S.sel.card && !ids.has(S.sel.card)) S.sel = { card: null, col: S.sel.col };
  renderBulk();
  // The others see where this user is, as the terminal client shows it: viewing the selected card, or the board
  // (a drag and an open panel say more, themselves). Sent again after a reconnect, when the server has forgotten it.
  if (!S.drag && !S.detail && !document.hidden) sendPresence(S.sel.card ? { state: 'viewing', card: S.sel.card } : { state: 'viewing' });
}

function colEl(col) {
  let e = colEls.get(col.id);
  if (e) return e;
  const name = utext('h2', 'col-name', '');
  const count = h('span', { class: 'col-count' });
  const note = h('span', { class: 'col-note' });
  const list = h('ol', { class: 'cards' });
  const input = h('input', { class: 'add-input', placeholder: 'Title of the new card', maxLength: TITLE_MAX, dir: 'auto', 'aria-label': 'New card title' });
  notePasteCut(input, 'Titles');
  const addBtn = h('button', { type: 'button', class: 'add-btn', text: '+ Add card' });
  const form = h('form', { class: 'add-form', hidden: true }, input,
    h('div', { class: 'add-row' }, h('button', { type: 'submit', text: 'Add' }), h('button', { type: 'button', class: 'add-cancel', text: 'Cancel' })));
  const el = h('section', { class: 'column', 'data-column-id': col.id },
    h('header', { class: 'col-head' }, name, h('span', { class: 'col-meta' }, count, note)), list, h('div', { class: 'col-foot' }, addBtn, form));
  e = { el, name, count, note, list, addBtn, form, input };
  addBtn.addEventListener('click', () => openAdd(col.id));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const title = input.value.replace(/[\r\n]+/g, ' ').trim();
    if (!title) return;
    op({ kind: 'card.add', column: col.id, title });
    input.value = '';
    input.focus();
  });
  form.querySelector('.add-cancel').addEventListener('click', () => closeAdd(col.id));
  input.addEventListener('keydown', (ev) => { if (ev.key === 'Escape') { ev.preventDefault(); closeAdd(col.id); } });
  colEls.set(col.id, e);
  return e;
}

function openAdd(colId) {
  const e = colEls.get(colId);
  if (!e || !canEdit()) return;
  e.addBtn.hidden = true;
  e.form.hidden = false;
  e.input.focus();
}
function closeAdd(colId) {
  const e = colEls.get(colId);
  if (!e) return;
  e.form.hidden = true;
  e.addBtn.hidden = false;
  e.input.value = '';
  S.sel = S.sel.card ? S.sel : { card: null, col: colId };
  focusSelection();
}

// The ghosts in a column: the others' drags and our own, each {card, index, label, own}.
function ghostsFor(colId) {
  const out = [];
  for (const s of S.presence) {
    if (s.state === 'dragging' && s.column === colId && s.card && Number.isInteger(s.index)) {
      const c = cardById(s.card);
      out.push({ card: s.card, index: s.index, own: false, title: c ? `#${c.card.number} ${c.card.title}` : '', who: personName(s) });
    }
  }
  if (S.drag && S.drag.col === colId) {
    const c = cardById(S.drag.card);
    const col = colById(colId);
    const wip = col && col.wip;
    // like cork: say so when the drop would be refused by a hard limit
    const full = wip && wip.hard && colId !== S.drag.fromCol && col.cards.length + 1 > wip.limit ? `${col.name} is full (${col.cards.length}/${wip.limit})` : '';
    // and when the card waits for others, a move into an in-progress column is refused (without a reason)
    const waiting = !full && c && col && isInProgress(col) && colId !== c.col.id ? blockersOf(c.card) : [];
    const blocked = waiting.length ? `blocked by ${numbers(waiting)}: finish those first` : '';
    out.push({ card: S.drag.card, index: S.drag.index, own: true, title: c ? `#${c.card.number} ${c.card.title}` : '', who: '', full, blocked });
  }
  return out;
}

function renderColumn(col) {
  const e = colEl(col);
  e.name.textContent = col.name;
  const total = col.cards.length;
  const shown = S.filter.cards ? col.cards.filter(visible).length : total;
  const wip = col.wip && Number.isInteger(col.wip.limit) ? col.wip : null;
  e.count.textContent = wip ? `${total}/${wip.limit}` : String(total);
  const over = wip && total > wip.limit;
  const full = wip && wip.hard && total >= wip.limit;
  e.el.classList.toggle('over', !!over);
  e.el.classList.toggle('full', !!full && !over);
  let note = '';
  if (wip) note = over ? (wip.hard ? '▲ over hard limit' : '▲ over limit') : full ? '⊘ full (hard limit)' : wip.hard ? 'hard limit' : '';
  if (S.filter.cards) note = (note ? note + ' · ' : '') + `${shown} shown`;
  e.note.textContent = note;
  e.count.title = wip ? `${total} cards, limit ${wip.limit}${wip.hard ? ' (hard)' : ''}` : `${total} cards`;
  e.el.setAttribute('aria-label', `${col.name}, ${total} card${total === 1 ? '' : 's'}${wip ? `, limit ${wip.limit}` : ''}`);
  e.el.classList.toggle('selected-col', !S.sel.card && S.sel.col === col.id);
  e.el.tabIndex = !S.sel.card && S.sel.col === col.id ? 0 : -1;

  // where each ghost goes: before the first shown card at or after its index (the dragged card itself left out)
  const before = new Map();
  const atEnd = [];
  for (const g of ghostsFor(col.id)) {
    const others = col.cards.filter((c) => c.id !== g.card);
    let anchor = null;
    for (let i = g.index; i < others.length; i++) if (visible(others[i])) { anchor = others[i].id; break; }
    const el = ghostEl(g);
    if (anchor) { if (!before.has(anchor)) before.set(anchor, []); before.get(anchor).push(el); } else atEnd.push(el);
  }
  const nodes = [];
  for (const c of col.cards) {
    if (before.has(c.id)) nodes.push(...before.get(c.id));
    if (visible(c)) nodes.push(cardEl(c));
  }
  nodes.push(...atEnd);
  if (!nodes.length) nodes.push(h('li', { class: 'empty', text: S.filter.cards && total ? 'no match' : 'empty' }));
  const had = document.activeElement;
  reconcile(e.list, nodes);
  if (had && had !== document.activeElement && document.contains(had)) had.focus({ preventScroll: true });
  e.addBtn.disabled = !canEdit();
}

function ghostEl(g) {
  const el = h('li', { class: 'ghost' + (g.own ? ' own' : ''), 'aria-hidden': g.own ? 'true' : null });
  el.append(utext('span', 'ghost-title', g.title || 'a card'));
  if (!g.own) el.append(h('span', { class: 'ghost-who' }, utext('span', '', g.who), ' is dragging'));
  if (g.full) { el.classList.add('refused'); el.append(h('span', { class: 'ghost-who', text: '⊘ ' + g.full })); }
  else if (g.blocked) { el.classList.add('refused'); el.append(h('span', { class: 'ghost-who', text: '⊘ ' + g.blocked })); }
  return el;
}

function presenceOn(cardId) {
  return S.presence.filter((s) => s.card === cardId && (s.state === 'viewing' || s.state === 'editing' || s.state === 'dragging'));
}

function cardEl(card) {
  const pres = presenceOn(card.id);
  const sig = blockSig(card);
  const key = [S.metaVer, today(), pres.map((s) => `${s.session}:${s.state}:${personName(s)}`).join(',')].join('|');
  const cached = cardEls.get(card.id);
  let el;
  if (cached && cached.card === card && cached.key === key && cached.sig === sig) el = cached.el;
  else {
    el = buildCard(card, pres, sig ? blockersOf(card) : []);
    cardEls.set(card.id, { card, key, sig, el });
  }
  // selection, marks and the drag source change the element in place, so a click in progress keeps its target
  const selected = S.sel.card === card.id;
  el.classList.toggle('selected', selected);
  el.classList.toggle('marked', S.multi.has(card.id));
  el.classList.toggle('drag-src', !!(S.drag && S.drag.card === card.id));
  el.tabIndex = selected ? 0 : -1;
  if (selected) el.setAttribute('aria-current', 'true'); else el.removeAttribute('aria-current');
  return el;
}

function buildCard(card, pres, waiting) {
  const li = h('li', { class: 'card' + (card.closed ? ' closed' : '') + (waiting.length ? ' blocked' : '') + (card.queued ? ' queued' : ''), 'data-card-id': card.id });
  const top = h('div', { class: 'card-top' }, h('span', { class: 'num', text: !card.queued ? `#${card.number}` : card.number === '…' ? 'not sent yet' : `#${card.number} · not sent yet` }), h('span', { class: 'mark', text: '✓ marked' }));
  if (card.closed) top.append(h('span', { class: 'closed-tag', text: '✓ closed' }));
  // Blocked is said in words (and in the tooltip, which names the blockers), not only in colour.
  if (waiting.length) {
    top.append(h('span', { class: 'blocked-tag', title: 'Blocked by ' + waiting.map((b) => `#${b.number} ${b.title}`).join(', ') },
      h('span', { 'aria-hidden': 'true', text: '⊘ ' }), `blocked by ${numbers(waiting)}`));
  }
  for (const s of pres) {
    const icon = s.state === 'editing' ? '✎' : s.state === 'dragging' ? '✥' : '◉';
    const b = h('span', { class: 'pbadge ' + s.state, title: `${personName(s)} is ${s.state} this card` },
      h('span', { 'aria-hidden': 'true', text: icon + ' ' }), utext('span', '', personName(s)), sr(` is ${s.state}`));
    top.append(b);
  }
  li.append(top, utext('div', 'title', card.title));

  if (card.labels && card.labels.length) {
    const chips = h('div', { class: 'chips' });
    for (const lid of card.labels) {
      const l = labelById(lid);
      chips.append(paint(utext('span', 'chip', l ? l.name : lid), l && l.color));
    }
    li.append(chips);
  }

  const meta = h('div', { class: 'card-meta' });
  if (card.due) {
    // done (closed, or in the last column) is never overdue, as the server and cork count it
    const last = S.columns[S.columns.length - 1];
    const overdue = !card.closed && !(last && card.column === last.id) && card.due < today();
    meta.append(h('span', { class: 'due' + (overdue ? ' overdue' : ''), title: overdue ? `overdue since ${card.due}` : `due ${card.due}` },
      overdue ? '⚠ overdue ' : 'due ', card.due));
  }
  if (card.recur) {
    const words = 'recurs ' + recurText(card.recur);
    meta.append(h('span', { class: 'recur', title: words }, h('span', { 'aria-hidden': 'true', text: '↻' }), sr(words)));
  }
  if (card.milestone) {
    const ms = milestoneById(card.milestone);
    meta.append(h('span', { class: 'ms', title: 'milestone' }, h('span', { 'aria-hidden': 'true', text: '◆ ' }), sr('milestone '), utext('span', '', ms ? ms.title : card.milestone)));
  }
  const list = card.checklist || [];
  if (list.length) {
    const done = list.filter((i) => i.done).length;
    meta.append(h('span', { class: 'cl' + (done === list.length ? ' all' : ''), title: 'checklist' }, h('span', { 'aria-hidden': 'true', text: '☑ ' }), sr('checklist '), `${done}/${list.length}`));
  }
  const comments = (card.comments || []).length;
  if (comments) meta.append(h('span', { class: 'cm', title: `${comments} comment${comments > 1 ? 's' : ''}` }, h('span', { 'aria-hidden': 'true', text: '✉ ' }), String(comments), sr(comments > 1 ? ' comments' : ' comment')));
  if (card.assignees && card.assignees.length) {
    const who = h('span', { class: 'who' });
    for (const u of card.assignees) {
      const n = memberName(u);
      who.append(h('span', { class: 'avatar', title: n }, h('span', { 'aria-hidden': 'true', text: initials(n) }), sr(n)));
    }
    meta.append(who);
  }
  if (meta.childNodes.length) li.append(meta);
  return li;
}

// ---------- selection and keyboard ----------

function shownCards(col) { return col.cards.filter(visible); }

function selectCard(id, focus = true) {
  const at = cardById(id);
  S.sel = { card: id, col: at ? at.col.id : null };
  renderBoard();
  if (focus) focusSelection();
}

function focusSelection() {
  let el = null;
  if (S.sel.card) el = $('board').querySelector(`.card[data-card-id="${CSS.escape(S.sel.card)}"]`);
  else if (S.sel.col) { const e = colEls.get(S.sel.col); el = e && e.el; }
  if (!el) return;
  if (!el.contains(document.activeElement)) el.focus({ preventScroll: true });
  el.scrollIntoView({ block: 'nearest', inline: 'nearest' });
}

function currentPlace() {
  // {ci, col, shown, i}: the selection as a column index and a position among the column's shown cards
  if (!S.columns.length) return null;
  let ci = 0;
  let i = -1;
  if (S.sel.card) {
    const at = cardById(S.sel.card);
    if (at) { ci = S.columns.indexOf(at.col); i = shownCards(at.col).indexOf(at.card); }
  } else if (S.sel.col) ci = Math.max(0, S.columns.findIndex((c) => c.id === S.sel.col));
  const col = S.columns[ci];
  return { ci, col, shown: shownCards(col), i };
}

function moveSel(dx, dy, to) {
  const p = currentPlace();
  if (!p) return;
  if (!S.sel.card && !S.sel.col) { // nothing selected yet: the first card
    const first = S.columns.find((c) => shownCards(c).length);
    if (first) selectCard(shownCards(first)[0].id); else { S.sel = { card: null, col: S.columns[0].id }; renderBoard(); focusSelection(); }
    return;
  }
  if (dx) {
    const ci = Math.min(S.columns.length - 1, Math.max(0, p.ci + dx));
    const col = S.columns[ci];
    const shown = shownCards(col);
    if (shown.length) selectCard(shown[Math.min(Math.max(p.i, 0), shown.length - 1)].id);
    else { S.sel = { card: null, col: col.id }; renderBoard(); focusSelection(); }
    return;
  }
  if (!p.shown.length) return;
  let i = to === 'first' ? 0 : to === 'last' ? p.shown.length - 1 : p.i < 0 ? 0 : p.i + dy;
  i = Math.min(p.shown.length - 1, Math.max(0, i));
  selectCard(p.shown[i].id);
}

function onKey(e) {
  const t = e.target;
  const mod = e.ctrlKey || e.metaKey;
  // undo / redo anywhere but in a text field
  if (mod && !e.altKey && !isTextField(t)) {
    const k = e.key.toLowerCase();
    if (k === 'z' || k === 'y') {
      e.preventDefault();
      intent({ t: (k === 'y' || e.shiftKey) ? 'redo' : 'undo' });
      return;
    }
  }
  if (mod || e.altKey || isTextField(t)) return;
  if (document.querySelector('dialog[open]')) return;
  if (S.drag && S.drag.mode === 'pointer') { if (e.key === 'Escape') { e.preventDefault(); endDrag(false); } return; }
  // a focused button or link keeps the keys that press it
  if ((e.key === ' ' || e.key === 'Enter') && t && t.closest && t.closest('button, a, summary') && !S.drag) return;
  if (S.drag && S.drag.mode === 'kbd') { carryKey(e); return; }
  const k = e.key;
  const handled = () => e.preventDefault();
  switch (k) {
    case 'h': case 'ArrowLeft': handled(); moveSel(-1, 0); break;
    case 'l': case 'ArrowRight': handled(); moveSel(1, 0); break;
    case 'j': case 'ArrowDown': handled(); moveSel(0, 1); break;
    case 'k': case 'ArrowUp': handled(); moveSel(0, -1); break;
    case 'g': case 'Home': handled(); moveSel(0, 0, 'first'); break;
    case 'G': case 'End': handled(); moveSel(0, 0, 'last'); break;
    case ' ': case 'm': handled(); if (S.sel.card) startDrag(S.sel.card, 'kbd'); break;
    case 'Enter': if (S.sel.card) { handled(); openDetail(S.sel.card); } break;
    case 'e': if (S.sel.card) { handled(); openDetail(S.sel.card, 'title'); } break;
    case 'v': if (S.sel.card) { handled(); toggleMark(S.sel.card); } break;
    case 'n': { handled(); const p = currentPlace(); if (p) openAdd(p.col.id); break; }
    case 'x': if (S.sel.card) { handled(); archiveCard(S.sel.card); } break;
    case 'C': if (S.sel.card) { handled(); toggleClosed(S.sel.card); } break;
    case 'J': case 'K': if (S.sel.card) { handled(); nudge(S.sel.card, k === 'J' ? 1 : -1); } break;
    case 'H': case 'L': if (S.sel.card) { handled(); shiftColumn(S.sel.card, k === 'L' ? 1 : -1); } break;
    case 'u': handled(); intent({ t: 'undo' }); break;
    case 'U': handled(); intent({ t: 'redo' }); break;
    case '/': handled(); $('app').querySelector('input[name="filter"]').focus(); break;
    case ':': handled(); $('chat-input').focus(); break;
    case '?': handled(); $('help').showModal(); break;
    case 'I': if (S.inbox.available) { handled(); openInbox(); } break;
    case 'Escape':
      if (S.multi.size) { handled(); S.multi.clear(); renderBoard(); }
      break;
    default: break;
  }
}

function toggleMark(id) {
  if (S.multi.has(id)) S.multi.delete(id); else S.multi.add(id);
  renderBoard();
  focusSelection();
}

function archiveCard(id) {
  const at = cardById(id);
  if (!at) return;
  if (!canEdit()) { toast('You can only read this board (your role is ' + S.role + ').', 'error'); return; }
  // the selection goes to a neighbour
  const shown = shownCards(at.col);
  const i = shown.indexOf(at.card);
  const next = shown[i + 1] || shown[i - 1];
  op({ kind: 'card.archive', card: id });
  if (S.sel.card === id) S.sel = next ? { card: next.id, col: at.col.id } : { card: null, col: at.col.id };
  toast(`Archived #${at.card.number} — Ctrl-Z undoes it, “Archived” restores it.`, 'ok');
}

function toggleClosed(id) {
  const at = cardById(id);
  if (at) op({ kind: at.card.closed ? 'card.reopen' : 'card.close', card: id });
}

function nudge(id, dir) {
  const at = cardById(id);
  if (!at) return;
  const shown = shownCards(at.col);
  const i = shown.indexOf(at.card);
  if (dir > 0) {
    const below = shown[i + 1];
    if (below) op({ kind: 'card.move', card: id, to_column: at.col.id, after: below.id });
  } else {
    const above = shown[i - 1];
    if (!above) return;
    const above2 = shown[i - 2];
    op(above2 ? { kind: 'card.move', card: id, to_column: at.col.id, after: above2.id } : { kind: 'card.move', card: id, to_column: at.col.id, before: above.id });
  }
}

function shiftColumn(id, dir) {
  const at = cardById(id);
  if (!at) return;
  const to = S.columns[S.columns.indexOf(at.col) + dir];
  if (to) op({ kind: 'card.move', card: id, to_column: to.id });
}

// ---------- drag and drop (pointer and keyboard) ----------

// A drop position is (column, index among the column's cards with the dragged card left out).
// Slots count only the shown cards (a filter may hide some): slot i is "just above the i-th shown card".
function slotToIndex(col, slot, dragId) {
  const others = col.cards.filter((c) => c.id !== dragId);
  const shown = others.filter(visible);
  return slot < shown.length ? others.indexOf(shown[slot]) : others.length;
}
function indexToSlot(col, index, dragId) {
  const others = col.cards.filter((c) => c.id !== dragId);
  let slot = 0;
  for (let i = 0; i < Math.min(index, others.length); i++) if (visible(others[i])) slot++;
  return slot;
}

function startDrag(id, mode) {
  if (!canEdit()) { toast('You can only read this board.', 'error'); return false; }
  const at = cardById(id);
  if (!at) return false;
  S.drag = { card: id, fromCol: at.col.id, fromIndex: at.index, col: at.col.id, index: at.index, mode };
  S.sel = { card: id, col: at.col.id };
  document.body.classList.add('dragging');
  renderBoard();
  dragPresence();
  if (mode === 'kbd' && !S.carryHint) S.carryHint = toast('Carrying the card: h j k l or arrows move it, Space, m or Enter drops it, Esc puts it back.', 'info', 4000);
  return true;
}

function setDragTarget(colId, index) {
  const d = S.drag;
  if (!d || (d.col === colId && d.index === index)) return;
  const old = d.col;
  d.col = colId;
  d.index = index;
  const a = colById(old);
  const b = colById(colId);
  if (a) renderColumn(a);
  if (b && b !== a) renderColumn(b);
  dragPresence();
}

function endDrag(commit) {
  const d = S.drag;
  if (!d) return;
  S.drag = null;
  document.body.classList.remove('dragging');
  clearTimeout(S.dragPresTimer);
  S.dragPresTimer = 0;
  if (floatEl) { floatEl.remove(); floatEl = null; }
  if (commit && !(d.col === d.fromCol && d.index === d.fromIndex)) {
    const col = colById(d.col);
    if (col) {
      const others = col.cards.filter((c) => c.id !== d.card);
      const o = { kind: 'card.move', card: d.card, to_column: d.col };
      if (d.index > 0 && others[d.index - 1]) o.after = others[d.index - 1].id;
      else if (others.length) o.before = others[0].id;
      op(o);
    }
  }
  // After a drop or Esc the user still looks at the board, at the card just carried (Protocol.md: `idle` means not
  // looking at this board, which only a hidden tab says).
  if (S.detail) sendPresence({ state: 'viewing', card: S.detail });
  else if (document.hidden) sendPresence({ state: 'idle' });
  else sendPresence(cardById(d.card) ? { state: 'viewing', card: d.card } : { state: 'viewing' });
  renderBoard();
  if (d.mode === 'kbd') focusSelection();
}

function dragPresence() {
  const now = performance.now();
  const wait = 100 - (now - (S.dragPresAt || 0));
  if (wait <= 0) { flushDragPresence(); return; }
  if (!S.dragPresTimer) S.dragPresTimer = setTimeout(flushDragPresence, wait);
}
function flushDragPresence() {
  S.dragPresTimer = 0;
  const d = S.drag;
  if (!d) return;
  S.dragPresAt = performance.now();
  sendPresence({ state: 'dragging', card: d.card, column: d.col, index: d.index });
}

function sendPresence(p) {
  const key = JSON.stringify(p);
  if (key === S.lastPresence) return;
  if (raw({ t: 'presence', ...p })) S.lastPresence = key;
}

function carryKey(e) {
  const d = S.drag;
  const k = e.key;
  const col = colById(d.col);
  if (!col) { endDrag(false); return; }
  const slot = indexToSlot(col, d.index, d.card);
  const nShown = col.cards.filter((c) => c.id !== d.card && visible(c)).length;
  e.preventDefault();
  switch (k) {
    case 'j': case 'ArrowDown': setDragTarget(col.id, slotToIndex(col, Math.min(nShown, slot + 1), d.card)); break;
    case 'k': case 'ArrowUp': setDragTarget(col.id, slotToIndex(col, Math.max(0, slot - 1), d.card)); break;
    case 'g': setDragTarget(col.id, slotToIndex(col, 0, d.card)); break;
    case 'G': setDragTarget(col.id, slotToIndex(col, nShown, d.card)); break;
    case 'h': case 'l': case 'ArrowLeft': case 'ArrowRight': {
      const to = S.columns[S.columns.indexOf(col) + (k === 'h' || k === 'ArrowLeft' ? -1 : 1)];
      if (!to) break;
      const n = to.cards.filter((c) => c.id !== d.card && visible(c)).length;
      setDragTarget(to.id, slotToIndex(to, Math.min(slot, n), d.card));
      break;
    }
    case ' ': case 'm': case 'Enter': endDrag(true); break;
    case 'Escape': endDrag(false); break;
    default: break;
  }
  const g = colEls.get(d.col);
  const ghost = g && g.list.querySelector('.ghost.own');
  if (ghost) ghost.scrollIntoView({ block: 'nearest', inline: 'nearest' });
}

let P = null; // a pointer press on a card that may become a drag
let floatEl = null;
let suppressClick = false;

function onPointerDown(e) {
  const cardNode = e.target.closest('.card');
  if (cardNode && e.button === 0 && !canEdit()) {
    // a viewer who tries to drag is told why nothing moves (a click still opens the card)
    P = { viewer: true, pid: e.pointerId, x0: e.clientX, y0: e.clientY };
    return;
  }
  if (!cardNode || e.button !== 0 || S.drag || !canEdit()) return;
  if (e.target.closest('button, input, textarea, select, a')) return;
  P = { id: cardNode.dataset.cardId, pid: e.pointerId, x0: e.clientX, y0: e.clientY, x: e.clientX, y: e.clientY, type: e.pointerType, el: cardNode, timer: 0 };
  if (e.pointerType !== 'mouse') {
    // touch and pen: press and hold, so that a swipe still scrolls
    P.timer = setTimeout(() => { if (P && !S.drag) beginPointerDrag(); }, 380);
  }
}

function beginPointerDrag() {
  const p = P;
  const rect = p.el.getBoundingClientRect();
  if (!startDrag(p.id, 'pointer')) { P = null; return; }
  floatEl = p.el.cloneNode(true);
  floatEl.classList.add('drag-float');
  floatEl.classList.remove('drag-src', 'selected');
  floatEl.removeAttribute('data-card-id');
  floatEl.style.width = rect.width + 'px';
  p.dx = p.x0 - rect.left;
  p.dy = p.y0 - rect.top;
  document.body.append(floatEl);
  moveFloat(p.x, p.y);
  autoScroll();
}

function moveFloat(x, y) {
  if (floatEl && P) floatEl.style.transform = `translate(${Math.round(x - P.dx)}px, ${Math.round(y - P.dy)}px) rotate(2deg)`;
}

function onPointerMove(e) {
  if (!P || e.pointerId !== P.pid) return;
  if (P.viewer) {
    if (P.told || Math.hypot(e.clientX - P.x0, e.clientY - P.y0) < 6) return;
    P.told = true;
    toast(`You can only read this board (your role is ${S.role}): cards cannot be moved.`, 'info');
    return;
  }
  P.x = e.clientX;
  P.y = e.clientY;
  if (!S.drag) {
    const dist = Math.hypot(P.x - P.x0, P.y - P.y0);
    if (P.type !== 'mouse') { if (dist > 10) { clearTimeout(P.timer); P = null; } return; }
    if (dist < 6) return;
    beginPointerDrag();
    if (!S.drag) return;
  }
  e.preventDefault();
  moveFloat(P.x, P.y);
  trackPointer(P.x, P.y);
}

function trackPointer(x, y) {
  const under = document.elementFromPoint(x, y);
  const colNode = under && under.closest('.column');
  if (!colNode || !S.drag) return;
  const col = colById(colNode.dataset.columnId);
  if (!col) return;
  const els = [...colEls.get(col.id).list.children].filter((n) => n.classList.contains('card') && n.dataset.cardId !== S.drag.card);
  let slot = els.length;
  for (let i = 0; i < els.length; i++) {
    const r = els[i].getBoundingClientRect();
    if (y < r.top + r.height / 2) { slot = i; break; }
  }
  setDragTarget(col.id, slotToIndex(col, slot, S.drag.card));
}

function onPointerUp(e) {
  if (!P || e.pointerId !== P.pid) return;
  clearTimeout(P.timer);
  if (P.viewer) {
    // a viewer's drag that was told why nothing moves does not also open the card it began on
    if (P.told) { suppressClick = true; setTimeout(() => { suppressClick = false; }, 0); }
    P = null;
    return;
  }
  if (S.drag && S.drag.mode === 'pointer') {
    trackPointer(e.clientX, e.clientY);
    endDrag(true);
    suppressClick = true;
    setTimeout(() => { suppressClick = false; }, 0);
  }
  P = null;
}

function onPointerCancel(e) {
  if (!P || e.pointerId !== P.pid) return;
  clearTimeout(P.timer);
  if (S.drag && S.drag.mode === 'pointer') endDrag(false);
  P = null;
}

// near an edge of the board, a column or the window, scroll while dragging
function autoScroll() {
  if (!S.drag || S.drag.mode !== 'pointer' || !P) return;
  const edge = 40;
  const step = (d) => Math.ceil((edge - d) / 3);
  const { x, y } = P;
  const board = $('board');
  const b = board.getBoundingClientRect();
  if (x < b.left + edge) board.scrollLeft -= step(x - b.left);
  else if (x > b.right - edge) board.scrollLeft += step(b.right - x);
  const under = document.elementFromPoint(x, y);
  const list = under && under.closest('.cards');
  if (list && list.scrollHeight > list.clientHeight) {
    const r = list.getBoundingClientRect();
    if (y < r.top + edge) list.scrollTop -= step(y - r.top);
    else if (y > r.bottom - edge) list.scrollTop += step(r.bottom - y);
  }
  const vh = window.innerHeight;
  if (y < edge) window.scrollBy(0, -step(y));
  else if (y > vh - edge) window.scrollBy(0, step(vh - y));
  trackPointer(x, y);
  requestAnimationFrame(autoScroll);
}

function onBoardClick(e) {
  if (suppressClick) { e.preventDefault(); return; }
  const cardNode = e.target.closest('.card');
  if (!cardNode) {
    const colNode = e.target.closest('.column');
    if (colNode && !e.target.closest('button, input, form') && !S.sel.card) { S.sel = { card: null, col: colNode.dataset.columnId }; renderBoard(); }
    return;
  }
  const id = cardNode.dataset.cardId;
  if (e.shiftKey || e.ctrlKey || e.metaKey) { S.sel = { card: id, col: null }; toggleMark(id); return; }
  selectCard(id);
  openDetail(id);
}

// ---------- multi-select ----------

function renderBulk() {
  const n = S.multi.size;
  $('bulk').hidden = n === 0;
  $('bulk-count').textContent = `${n} card${n === 1 ? '' : 's'} marked`;
}
function renderBulkColumns() {
  const sel = $('bulk-col');
  const v = sel.value;
  sel.replaceChildren(...S.columns.map((c) => h('option', { value: c.id, text: c.name })));
  if (v && colById(v)) sel.value = v;
}
function bulkMove() {
  const to = $('bulk-col').value;
  if (!colById(to)) return;
  const ids = [];
  for (const col of S.columns) for (const c of col.cards) if (S.multi.has(c.id)) ids.push(c.id);
  for (const id of ids) op({ kind: 'card.move', card: id, to_column: to });
  S.multi.clear();
  renderBoard();
}

// ---------- card detail ----------

const D = {}; // the detail panel's parts

function buildDetail() {
  const dlg = $('detail');
  const title = h('textarea', { id: 'd-title', class: 'd-title u', rows: 2, dir: 'auto', maxLength: TITLE_MAX });
  const colSel = h('select', { id: 'd-col' });
  const due = h('input', { id: 'd-due', type: 'date' });
  const ms = h('select', { id: 'd-ms' });
  const labels = h('div', { class: 'd-labels', role: 'group', 'aria-label': 'Labels' });
  const lname = h('input', { id: 'd-lname', placeholder: 'New label', maxLength: LABEL_NAME_MAX, dir: 'auto', 'aria-label': 'New label name' });
  const lcolor = h('input', { id: 'd-lcolor', type: 'color', value: '#0075ca', 'aria-label': 'New label colour' });
  const people = h('div', { class: 'd-people', role: 'group', 'aria-label': 'Assignees' });
  const desc = h('textarea', { id: 'd-desc', class: 'd-desc u', rows: 5, dir: 'auto', placeholder: 'No description' });
  const clList = h('ul', { class: 'd-checklist' });
  const clCount = h('span', { class: 'muted' });
  const clInput = h('input', { placeholder: 'New checklist item', maxLength: ITEM_MAX, dir: 'auto', 'aria-label': 'New checklist item' });
  notePasteCut(title, 'Titles');
  notePasteCut(lname, 'Label names');
  notePasteCut(clInput, 'Checklist items');
  const cmList = h('ol', { class: 'd-comments' });
  const cmInput = h('textarea', { rows: 3, dir: 'auto', placeholder: 'Write a comment… (Ctrl-Enter sends)', 'aria-label': 'New comment' });
  const state = h('span', { class: 'd-state' });
  const pres = h('span', { class: 'd-pres' });
  const closeBtn = h('button', { type: 'button', class: 'd-close' });
  const markBtn = h('button', { type: 'button' });
  const gone = h('div', { class: 'd-gone', hidden: true },
    h('p', { text: 'This card is no longer on the board (archived or removed).' }));
  // what was typed in the description and not saved when the card went: shown to copy, not lost with the panel
  const goneDraft = h('textarea', { class: 'd-desc u', rows: 5, dir: 'auto', readOnly: true, hidden: true, 'aria-label': 'Your unsaved description' });
  const goneDraftNote = h('p', { class: 'muted', hidden: true, text: 'Your unsaved description, to copy before you close this:' });
  gone.append(goneDraftNote, goneDraft);
  const depWaiting = h('ul', { class: 'd-deplist' });
  const depDone = h('ul', { class: 'd-deplist' });
  const depBlocks = h('ul', { class: 'd-deplist' });
  const depRow = (cls, label, list) => h('div', { class: 'd-dep ' + cls }, h('span', { class: 'd-dep-k', text: label }), list);
  const deps = h('section', { class: 'd-sec d-deps', hidden: true, 'aria-label': 'Dependencies' },
    depRow('waiting', '⊘ Blocked by', depWaiting), depRow('done', 'Blocked by (done)', depDone), depRow('blocks', 'Blocks', depBlocks));
  const recur = h('p', { class: 'd-recur', hidden: true });
  const edit = h('div', { class: 'd-edit' },
    h('label', { class: 'field' }, h('span', { text: 'Title' }), title),
    h('div', { class: 'd-row' },
      h('label', { class: 'field' }, h('span', { text: 'Column' }), colSel),
      h('label', { class: 'field' }, h('span', { text: 'Due' }), due),
      h('label', { class: 'field' }, h('span', { text: 'Milestone' }), ms)),
    deps,
    recur,
    h('fieldset', {}, h('legend', { text: 'Labels' }), labels,
      h('form', { class: 'd-newlabel' }, lname, lcolor, h('button', { type: 'submit', text: 'Create label' }))),
    h('fieldset', {}, h('legend', { text: 'Assignees' }), people),
    h('label', { class: 'field' }, h('span', { text: 'Description' }), desc),
    h('section', { class: 'd-sec' }, h('h3', {}, 'Checklist ', clCount), clList,
      h('form', { class: 'd-addrow' }, clInput, h('button', { type: 'submit', text: 'Add item' }))),
    h('section', { class: 'd-sec' }, h('h3', { text: 'Comments' }), cmList,
      h('form', { class: 'd-comment' }, cmInput, h('button', { type: 'submit', text: 'Comment' }))),
    h('div', { class: 'd-actions' }, closeBtn, markBtn,
      h('button', { type: 'button', class: 'danger', text: 'Archive', onclick: () => { if (S.detail) { archiveCard(S.detail); dlg.close(); } } })));
  dlg.append(
    h('div', { class: 'phead' }, h('h2', { id: 'detail-h', class: 'num' }), state, pres,
      h('button', { type: 'button', class: 'close-x', 'aria-label': 'Close', text: '×', onclick: () => dlg.close() })),
    gone, edit);
  Object.assign(D, { dlg, title, colSel, due, ms, labels, lname, lcolor, people, desc, clList, clCount, clInput, cmList, cmInput, state, pres, closeBtn, markBtn, gone, goneDraft, goneDraftNote, edit, deps, depWaiting, depDone, depBlocks, recur, descBase: 0, descShown: null, cmDrafts: new Map() });

  title.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') { e.preventDefault(); title.blur(); }
    // Esc leaves the title as it was (the panel closes, and leaving the field would save what was typed)
    if (e.key === 'Escape') { const c = detailCard(); if (c) title.value = c.title; }
  });
  title.addEventListener('input', fitTitle);
  title.addEventListener('focus', () => { const c = detailCard(); if (c) D.titleBase = c.title; });
  title.addEventListener('change', () => {
    const c = detailCard();
    const v = title.value.replace(/[\r\n]+/g, ' ').trim();
    if (c && v && v !== c.title && D.titleBase !== undefined && D.titleBase !== c.title) {
      // renamed by someone else while this edit was open: theirs is not replaced unseen
      titleConflict(c, v);
    // based on the title shown: renamed by then on the server (say while this waited offline), it is refused, not lost
    } else if (c && v && v !== c.title) {
      S.titleSent = { card: c.id, text: v };
      op({ kind: 'card.edit', card: c.id, title: v, base_title: c.title });
    }
    else if (c && !v) title.value = c.title;
  });
  colSel.addEventListener('change', () => { const c = detailCard(); if (c) op({ kind: 'card.move', card: c.id, to_column: colSel.value }); });
  // A date typed by keyboard changes at each digit (the year passes 0002, 0020, 0202; retyping a date already set
  // makes a whole date, or none, at every key): what is typed is sent when the field is left or on Enter, so that one
  // date typed is one change in everyone's feed and one undo. A date picked from the calendar, or cleared, with no
  // key typed, is sent at once.
  const sendDue = () => {
    D.dueTyped = false;
    const c = detailCard();
    const v = due.value || null;
    // The browser takes years past 9999; the board's dates have four digits.
    if (c && v && !/^\d{4}-\d{2}-\d{2}$/.test(v)) {
      toast('A due date’s year has four digits.', 'error');
      due.value = c.due || '';
      return;
    }
    if (c && v !== (c.due || null) && v !== D.dueSent) { D.dueSent = v; op({ kind: 'card.edit', card: c.id, due: v }); }
  };
  due.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') sendDue();
    else if (e.key.length === 1 || ['Backspace', 'Delete', 'ArrowUp', 'ArrowDown'].includes(e.key)) D.dueTyped = true;
  });
  due.addEventListener('change', () => { if (!D.dueTyped && (!due.value || due.value.slice(0, 4) >= '1000')) sendDue(); });
  due.addEventListener('blur', sendDue);
  due.addEventListener('focus', () => { D.dueSent = undefined; D.dueTyped = false; });
  ms.addEventListener('change', () => { const c = detailCard(); if (c) op({ kind: 'card.edit', card: c.id, milestone: ms.value || null }); });
  desc.addEventListener('input', () => { if (D.descDraft) D.descDraft.text = desc.value; });
  desc.addEventListener('focus', () => { const c = detailCard(); if (c && desc.value === c.description) D.descBase = c.description_seq; });
  desc.addEventListener('change', () => {
    const c = detailCard();
    if (!c || desc.value === c.description) return;
    if (overLimit(desc.value, DESC_MAX_BYTES, 'The description')) return;
    // kept until the answer: a conflict gives the text back instead of losing it (descConflict)
    D.descSent = { card: c.id, text: desc.value };
    D.descDraft = null;
    op({ kind: 'card.edit', card: c.id, description: desc.value, base_seq: D.descBase || c.description_seq || 0 });
  });
  // Until a colour is picked, a new label gets the one cork gives the same name.
  lname.addEventListener('input', () => { if (!D.lcolorPicked) lcolor.value = labelColorFor(lname.value); });
  lcolor.addEventListener('input', () => { D.lcolorPicked = true; });
  lname.form.addEventListener('submit', (e) => {
    e.preventDefault();
    const c = detailCard();
    const name = lname.value.replace(/[\r\n]+/g, ' ').trim();
    const color = COLOR_RE.test(lcolor.value) ? lcolor.value.toLowerCase() : labelColorFor(name);
    if (!name) return;
    const existing = S.meta.labels.find((l) => l.name.toLowerCase() === name.toLowerCase());
    let id = existing ? existing.id : slug(name);
    if (!existing) {
      if (labelById(id)) id = id + '-' + Math.random().toString(36).slice(2, 6);
      op({ kind: 'label.create', label: id, name, color });
    }
    if (c && !(c.labels || []).includes(id)) op({ kind: 'card.label', card: c.id, label: id });
    lname.value = '';
    D.lcolorPicked = false;
  });
  clInput.form.addEventListener('submit', (e) => {
    e.preventDefault();
    const c = detailCard();
    const text = clInput.value.replace(/[\r\n]+/g, ' ').trim();
    if (c && text) { S.sentText = { kind: 'checklist.add', card: c.id, text, field: clInput }; op({ kind: 'checklist.add', card: c.id, text }); }
    clInput.value = '';
  });
  cmInput.form.addEventListener('submit', (e) => {
    e.preventDefault();
    const c = detailCard();
    if (c && cmInput.value.trim()) {
      if (overLimit(cmInput.value, COMMENT_MAX_BYTES, 'The comment')) return;
      S.sentText = { kind: 'comment.add', card: c.id, text: cmInput.value, field: cmInput };
      op({ kind: 'comment.add', card: c.id, text: cmInput.value });
    }
    cmInput.value = '';
    if (c) D.cmDrafts.delete(c.id);
  });
  cmInput.addEventListener('keydown', (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); cmInput.form.requestSubmit(); } });
  cmInput.addEventListener('input', () => { if (S.detail) { if (cmInput.value) D.cmDrafts.set(S.detail, cmInput.value); else D.cmDrafts.delete(S.detail); } });
  closeBtn.addEventListener('click', () => { const c = detailCard(); if (c) toggleClosed(c.id); });
  markBtn.addEventListener('click', () => { if (S.detail) { if (S.multi.has(S.detail)) S.multi.delete(S.detail); else S.multi.add(S.detail); renderBoard(); renderDetail(); } });
  dlg.addEventListener('close', () => {
    const id = S.detail;
    S.detail = null;
    sendPresence({ state: 'viewing' });
    if (id && cardById(id)) { S.sel = { card: id, col: null }; renderBoard(); focusSelection(); }
  });
  dlg.addEventListener('focusin', () => editingPresence());
  dlg.addEventListener('focusout', () => setTimeout(() => { editingPresence(); renderDetail(); }, 0));
}

function editingPresence() {
  if (!S.detail) return;
  const a = document.activeElement;
  const editing = a && D.dlg.contains(a) && isTextField(a);
  sendPresence({ state: editing ? 'editing' : 'viewing', card: S.detail });
}

// the whole title shows in the panel (up to 40% of the window, then it scrolls)
function fitTitle() {
  const t = D.title;
  t.style.height = 'auto';
  t.style.height = Math.min(t.scrollHeight + 4, Math.round(window.innerHeight * 0.4)) + 'px';
}

const detailCard = () => { const at = S.detail && cardById(S.detail); return at ? at.card : null; };

function openDetail(id, focus) {
  if (id.startsWith('~queued-')) { toast(NOT_SENT_YET, 'info'); return; }
  if (!D.dlg) buildDetail();
  S.detail = id;
  D.descShown = null;
  // a comment begun on this card and left unsent (Esc, ×, another card) is there again
  D.cmInput.value = D.cmDrafts.get(id) || '';
  D.clInput.value = '';
  if (!D.dlg.open) D.dlg.showModal();
  renderDetail();
  sendPresence({ state: 'viewing', card: id });
  if (focus === 'title') { D.title.focus(); D.title.select(); } else D.dlg.querySelector('.close-x').focus();
  D.dlg.scrollTop = 0;
}

// Refreshes the panel from the model, leaving alone the field that has the focus.
function renderDetail() {
  if (!S.detail || !D.dlg || !D.dlg.open && S.detail == null) return;
  const at = cardById(S.detail);
  D.gone.hidden = !!at;
  D.edit.hidden = !at;
  if (!at) {
    D.state.textContent = '';
    // the description being typed when the card went stays readable (the box it was in is hidden with the card)
    const draft = D.desc.value !== (D.descShown ?? '') ? D.desc.value : '';
    if (draft) D.goneDraft.value = draft;
    D.goneDraft.hidden = D.goneDraftNote.hidden = !D.goneDraft.value;
    return;
  }
  D.goneDraft.value = '';
  D.goneDraft.hidden = D.goneDraftNote.hidden = true;
  const c = at.card;
  const a = document.activeElement;
  const keep = (el) => el === a || (el.contains && el.contains(a));
  const ro = !canEdit();
  $('detail-h').textContent = `#${c.number}`;
  const waiting = blockersOf(c);
  D.state.textContent = (c.closed ? '✓ closed' : 'open') + (waiting.length ? ' · ⊘ blocked' : '');
  D.state.className = 'd-state' + (c.closed ? ' closed' : '') + (waiting.length ? ' blocked' : '');
  if (!keep(D.deps) || D.depsFor !== c.id) renderDeps(c, waiting); // a link just followed keeps no stale list
  renderRecur(c);
  const pres = presenceOn(c.id);
  D.pres.textContent = pres.map((s) => `${s.state === 'editing' ? '✎' : '◉'} ${s.name || s.user} ${s.state}`).join(' · ');
  if (!keep(D.title)) { D.title.value = c.title; fitTitle(); }
  D.title.readOnly = ro;
  if (!keep(D.colSel)) D.colSel.replaceChildren(...S.columns.map((col) => h('option', { value: col.id, text: col.name })));
  // Focused too: a choice is sent at once, so a refused move shows the card's column again.
  if (D.colSel.value !== at.col.id) D.colSel.value = at.col.id;
  if (!keep(D.due)) D.due.value = c.due || '';
  if (!keep(D.ms)) {
    D.ms.replaceChildren(h('option', { value: '', text: '— none —' }),
      ...S.meta.milestones.map((m) => h('option', { value: m.id, text: m.title + (m.closed ? ' (closed)' : '') + (m.due ? ` · ${m.due}` : '') })));
    D.ms.value = c.milestone || '';
  }
  for (const el of [D.colSel, D.due, D.ms, D.lname, D.lcolor, D.clInput, D.cmInput]) el.disabled = ro;
  // a viewer's panel: the buttons that would change the board are off too (Archive said it archived, and did not)
  for (const b of D.edit.querySelectorAll('form button, .d-actions button')) b.disabled = ro;
  if (!keep(D.labels)) {
    D.labels.replaceChildren(...S.meta.labels.map((l) => {
      const on = (c.labels || []).includes(l.id);
      const b = paint(h('button', { type: 'button', class: 'chip toggle' + (on ? ' on' : ''), 'aria-pressed': on ? 'true' : 'false', disabled: ro },
        h('span', { 'aria-hidden': 'true', text: on ? '✓ ' : '+ ' }), utext('span', '', l.name)), l.color);
      b.addEventListener('click', () => op({ kind: on ? 'card.unlabel' : 'card.label', card: c.id, label: l.id }));
      return b;
    }));
    if (!S.meta.labels.length) D.labels.append(h('span', { class: 'muted', text: 'No labels yet.' }));
  }
  if (!keep(D.people)) {
    D.people.replaceChildren(...S.meta.members.filter((m) => m.role !== 'viewer').map((m) => {
      const on = (c.assignees || []).includes(m.id);
      const n = m.name || m.id;
      const b = h('button', { type: 'button', class: 'toggle person-t' + (on ? ' on' : ''), 'aria-pressed': on ? 'true' : 'false', disabled: ro },
        h('span', { class: 'avatar', 'aria-hidden': 'true', text: initials(n) }), utext('span', '', n));
      b.addEventListener('click', () => op({ kind: on ? 'card.unassign' : 'card.assign', card: c.id, user: m.id }));
      return b;
    }));
  }
  if (!keep(D.desc) && !(D.descDraft && D.descDraft.card === c.id)) {
    if (D.descShown !== c.description) { D.desc.value = c.description || ''; D.descShown = c.description; D.descBase = c.description_seq; }
  }
  D.desc.readOnly = ro;
  const list = c.checklist || [];
  D.clCount.textContent = list.length ? `${list.filter((i) => i.done).length}/${list.length}` : '';
  if (!keep(D.clList)) {
    D.clList.replaceChildren(...list.map((item) => {
      const box = h('input', { type: 'checkbox', checked: !!item.done, disabled: ro, 'aria-label': `Done: ${item.text}` });
      const text = h('input', { class: 'u', value: item.text, dir: 'auto', readOnly: ro, 'aria-label': 'Checklist item' });
      box.addEventListener('change', () => op({ kind: 'checklist.edit', card: c.id, item: item.id, done: box.checked }));
      text.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); text.blur(); } });
      text.addEventListener('change', () => {
        const v = text.value.replace(/[\r\n]+/g, ' ').trim();
        if (v && v !== item.text) op({ kind: 'checklist.edit', card: c.id, item: item.id, text: v });
        else text.value = item.text;
      });
      const rm = h('button', { type: 'button', class: 'icon', 'aria-label': 'Remove item', title: 'Remove', text: '×', disabled: ro });
      rm.addEventListener('click', () => op({ kind: 'checklist.remove', card: c.id, item: item.id }));
      return h('li', { class: item.done ? 'done' : '' }, box, text, rm);
    }));
  }
  const comments = c.comments || [];
  const atBottom = D.cmList.childElementCount !== comments.length;
  // a delete button that had the focus has it again in the list made anew (its question, too)
  const focusedDelete = D.cmList.contains(document.activeElement) ? document.activeElement.dataset.commentDelete : undefined;
  D.cmList.replaceChildren(...comments.map((cm) => {
    const mine = S.me && cm.author === S.me.user;
    const li = h('li', { class: 'comment' + (mine ? ' mine' : '') },
      h('div', { class: 'c-head' }, utext('b', '', memberName(cm.author)), ' ', h('time', { text: clock(cm.at) + (cm.edited_at ? ' (edited)' : '') })),
      utext('p', 'c-text', cm.text));
    if (mine || S.role === 'owner') {
      // A deleted comment has no undo: the first click asks (for 5 s), the second deletes.
      const asking = D.cmDelete === cm.id;
      const del = h('button', {
        type: 'button', class: asking ? 'c-delete asking' : 'icon', 'data-comment-delete': cm.id, disabled: ro,
        'aria-label': asking ? 'Delete this comment for good' : 'Delete comment', title: asking ? 'It cannot be undone' : 'Delete',
        text: asking ? 'Delete for good?' : '×',
      });
      del.addEventListener('click', () => {
        if (D.cmDelete === cm.id) { D.cmDelete = null; op({ kind: 'comment.delete', card: c.id, comment: cm.id }); return; }
        D.cmDelete = cm.id;
        clearTimeout(D.cmDeleteTimer);
        D.cmDeleteTimer = setTimeout(() => { if (D.cmDelete === cm.id) { D.cmDelete = null; renderDetail(); } }, 5000);
        renderDetail();
        const asked = D.cmList.querySelector(`[data-comment-delete="${CSS.escape(cm.id)}"]`);
        if (asked) asked.focus();
      });
      li.firstChild.append(del);
    }
    return li;
  }));
  if (!comments.length) D.cmList.append(h('li', { class: 'muted', text: 'No comments yet.' }));
  if (focusedDelete) { const again = D.cmList.querySelector(`[data-comment-delete="${CSS.escape(focusedDelete)}"]`); if (again) again.focus(); }
  if (atBottom && D.cmList.lastChild) { /* new comment: keep it in view only if the form has focus */ if (keep(D.cmInput)) D.cmList.lastChild.scrollIntoView({ block: 'nearest' }); }
  D.cmInput.readOnly = ro;
  D.closeBtn.textContent = c.closed ? 'Reopen card' : 'Close card';
  D.closeBtn.disabled = ro;
  D.markBtn.textContent = S.multi.has(c.id) ? 'Unmark' : 'Mark for bulk move';
}

// A recurrence rule in words, as the terminal client says it (Recurrence's description in BoardCore).
function recurText(r) {
  if (!r) return '';
  if (r.after_done_days) return `${r.after_done_days} day${r.after_done_days === 1 ? '' : 's'} after done`;
  switch (r.every) {
    case 'day': return 'every day';
    case 'weekday': return 'every weekday';
    case 'week': return 'every week on ' + (r.days || []).join(', ');
    case 'month': return `every month on day ${r.day || 1}`;
    default: return 'never';
  }
}

// The detail's line on how the card comes back once done and who watches it; hidden when neither applies.
function renderRecur(c) {
  const parts = [];
  if (c.recur) parts.push('↻ Recurs ' + recurText(c.recur));
  const watchers = c.watchers || [];
  if (watchers.length) parts.push('Watched by ' + watchers.map((u) => '@' + u).join(', '));
  D.recur.textContent = parts.join(' · ');
  D.recur.hidden = !parts.length;
}

// The detail's dependencies: the blockers still pending, those done, and the cards that wait for this one, each a
// button that opens that card. The section hides when there are none.
function renderDeps(c, waiting) {
  const done = doneBlockersOf(c);
  const blocks = blockedByCard(c.id);
  const fill = (list, cards) => {
    list.replaceChildren(...cards.map((b) => h('li', {}, depLink(b))));
    list.parentNode.hidden = !cards.length;
  };
  fill(D.depWaiting, waiting);
  fill(D.depDone, done);
  fill(D.depBlocks, blocks);
  D.depsFor = c.id;
  D.deps.hidden = !waiting.length && !done.length && !blocks.length;
}

function depLink(card) {
  const at = cardById(card.id);
  const done = !!at && isDone(at);
  const b = h('button', { type: 'button', class: 'dep-link' + (done ? ' done' : ''), title: `Open #${card.number}` },
    h('span', { class: 'num', text: (done ? '✓ ' : '') + `#${card.number}` }), ' ', utext('span', 'dep-title', card.title),
    done ? sr(' (done)') : null);
  b.addEventListener('click', () => { if (cardById(card.id)) { selectCard(card.id, false); openDetail(card.id); } });
  return b;
}

// ---------- archived ----------

function openArchived() {
  $('archive-list').replaceChildren(h('li', { class: 'muted', text: 'Loading…' }));
  $('archive-empty').hidden = true;
  if (!$('archive').open) $('archive').showModal();
  if (!raw({ t: 'archived' })) $('archive-list').replaceChildren(h('li', { class: 'muted', text: 'Offline: the archive shows once the connection is back.' }));
}

function renderArchived(cards) {
  if (!$('archive').open) return;
  $('archive-empty').hidden = cards.length > 0;
  $('archive-list').replaceChildren(...cards.map((c) => {
    const btn = h('button', { type: 'button', text: 'Restore', disabled: !canEdit(), 'aria-label': `Restore #${c.number}` });
    const li = h('li', {}, h('span', { class: 'num', text: `#${c.number}` }), utext('span', 'a-title', c.title), btn);
    btn.addEventListener('click', () => {
      op({ kind: 'card.restore', card: c.id });
      li.remove();
      setTimeout(() => raw({ t: 'archived' }), 300);
    });
    return li;
  }));
}

// ---------- feed and chat ----------

// Whether the feed shows its newest lines: then it stays so as lines arrive and as its box changes size (a window
// resized to phone width, a filter error that makes the header taller).
function feedAtBottom(list) { return list.scrollHeight - list.scrollTop - list.clientHeight < 40; }

function watchFeed() {
  const list = $('feed-list');
  S.feedPinned = true;
  list.addEventListener('scroll', () => { S.feedPinned = feedAtBottom(list); });
  if (typeof ResizeObserver === 'function') {
    new ResizeObserver(() => { if (S.feedPinned) list.scrollTop = list.scrollHeight; }).observe(list);
  }
}

function addFeed(m) {
  const items = Array.isArray(m.items) ? m.items : [];
  const list = $('feed-list');
  const nearBottom = S.feedPinned || feedAtBottom(list);
  if (m.replace) { S.feed = []; S.feedSeqs.clear(); list.replaceChildren(); }
  for (const it of items) {
    // once each: after a reconnect an entry can come both in the backlog and on its own
    if (Number.isInteger(it.seq)) { if (S.feedSeqs.has(it.seq)) continue; S.feedSeqs.add(it.seq); }
    // Reorders of one card by one person in a row are one line with a count (`×4`), as in cork: nudging a card up a
    // few places is one thing done, not four lines that push the rest of the feed away.
    const last = S.feed[S.feed.length - 1];
    if (last && isReorder(it) && last.kind === it.kind && last.user === it.user && last.text === it.text && list.lastElementChild) {
      last.times = (last.times || 1) + 1;
      list.lastElementChild.replaceWith(feedEl(last));
      continue;
    }
    S.feed.push(it);
    list.append(feedEl(it));
  }
  // A chat line takes a seq but changes nothing shown, so no diff brings it: the board is at that seq all the same.
  let seq = S.seq;
  for (const it of items) if (it.kind === 'chat' && Number.isInteger(it.seq) && it.seq > seq) seq = it.seq;
  if (seq !== S.seq && S.boardId && !S.resyncing) { S.seq = seq; $('board').dataset.seq = String(seq); }
  while (S.feed.length > FEED_MAX) { const old = S.feed.shift(); S.feedSeqs.delete(old.seq); list.firstChild && list.firstChild.remove(); }
  if (!list.childElementCount) list.append(h('li', { class: 'muted', text: 'Nothing yet.' }));
  else { const empty = list.querySelector(':scope > .muted'); if (empty) empty.remove(); }
  if (nearBottom || m.replace) { list.scrollTop = list.scrollHeight; S.feedPinned = true; }
}

function mentionsMe(text) {
  if (!S.me) return false;
  const me = S.me.user.toLowerCase();
  for (const m of String(text).matchAll(/@([A-Za-z0-9_.-]+)/g)) if (m[1].toLowerCase().replace(/[.]+$/, '') === me) return true;
  return false;
}

// The text with @mentions of the user in <mark>, as text nodes only.
function withMentions(text) {
  const out = [];
  const me = S.me ? S.me.user.toLowerCase() : null;
  let last = 0;
  for (const m of String(text).matchAll(/@([A-Za-z0-9_.-]+)/g)) {
    const who = m[1].toLowerCase().replace(/[.]+$/, '');
    if (who !== me) continue;
    out.push(text.slice(last, m.index), h('mark', { text: m[0] }));
    last = m.index + m[0].length;
  }
  out.push(text.slice(last));
  return out;
}

// The server's sentences quote titles ("…"): each quoted part is isolated for bidi, so that a title with an RTL
// override cannot reverse the rest of the sentence (the words after it, the closing quote).
function isolateQuoted(parts) {
  const out = [];
  for (const part of parts) {
    if (typeof part !== 'string') { out.push(part); continue; }
    let last = 0;
    for (const m of part.matchAll(/"([^"]+)"/g)) {
      out.push(part.slice(last, m.index + 1), h('span', { class: 'u', dir: 'auto', text: m[1] }), '"');
      last = m.index + m[0].length;
    }
    out.push(part.slice(last));
  }
  return out;
}

// A change line that says someone reordered a card within its column.
function isReorder(it) {
  return it.kind === 'change' && /^\S+ reordered #\d+ /.test(String(it.text ?? ''));
}

function feedEl(it) {
  const kind = ['change', 'chat', 'bot', 'system'].includes(it.kind) ? it.kind : 'change';
  const text = String(it.text ?? '') + (it.times > 1 ? ` ×${it.times}` : '');
  const mention = !it.own && mentionsMe(text);
  const li = h('li', { class: `fi k-${kind}` + (it.own ? ' own' : '') + (mention ? ' mention' : '') });
  li.append(h('time', { class: 'fi-time', text: clock(it.at) }));
  const body = h('span', { class: 'fi-text u', dir: 'auto' });
  const prefix = `<${it.user}> `;
  if (kind === 'chat' && text.startsWith(prefix)) body.append(h('b', { class: 'fi-who', text: memberName(it.user) + ': ' }), ...withMentions(text.slice(prefix.length)));
  else body.append(...isolateQuoted(withMentions(text)));
  if (mention) body.append(sr(' (mentions you)'));
  if (it.card) {
    const btn = h('button', { type: 'button', class: 'fi-link', title: 'Open the card' }, body);
    btn.addEventListener('click', () => { if (cardById(it.card)) { selectCard(it.card, false); openDetail(it.card); } else toast(GONE, 'info'); });
    li.append(btn);
  } else li.append(body);
  return li;
}

// ---------- inbox ----------

const inboxEls = new Map(); // entry id -> {key, el}

// Keeps `e` among the entries, newest (highest id) first, replacing the entry with its id.
function inboxInsert(e) {
  const I = S.inbox;
  const i = I.entries.findIndex((x) => x.id === e.id);
  if (i >= 0) I.entries.splice(i, 1);
  const at = I.entries.findIndex((x) => x.id < e.id);
  if (at < 0) I.entries.push(e); else I.entries.splice(at, 0, e);
}

const isEntry = (e) => e && typeof e === 'object' && Number.isInteger(e.id);

// A page of the inbox: the first one (on open, after a reconnect, when the panel opens) replaces the entries; an
// older one (`before`) adds to them.
function inboxPage(m) {
  const I = S.inbox;
  I.loading = false;
  if (m.error) { I.error = String(m.error); renderInbox(); return; }
  I.available = true;
  I.error = '';
  if (Number.isInteger(m.unread)) I.unread = m.unread;
  if (m.before == null) I.entries = [];
  for (const e of Array.isArray(m.entries) ? m.entries : []) if (isEntry(e)) inboxInsert(e);
  I.more = !!m.more;
  if ($('inbox').open) markShownRead();
  renderInboxButton();
  renderInbox();
}

// A new entry: counted, listed, told in a toast (and a browser notification when the user allowed them).
function inboxEntry(m) {
  const e = m.entry;
  if (!isEntry(e)) return;
  const I = S.inbox;
  I.available = true;
  if (Number.isInteger(m.unread)) I.unread = m.unread;
  const known = I.entries.some((x) => x.id === e.id);
  inboxInsert(e);
  if (I.entries.length > INBOX_MAX) { I.entries.length = INBOX_MAX; I.more = true; }
  if ($('inbox').open) markShownRead(); // shown as it arrives, so read
  renderInboxButton();
  renderInbox();
  if (known || e.read) return;
  const el = toast('✉ ' + entrySentence(e), 'info inbox-toast', 6000);
  el.insertBefore(h('button', { type: 'button', text: 'Open inbox', onclick: () => { el.remove(); openInbox(); } }), el.lastChild);
  notifyEntry(e);
}

// Entries read on one of the user's clients (this page included).
function inboxRead(m) {
  const I = S.inbox;
  if (Number.isInteger(m.unread)) I.unread = m.unread;
  const ids = new Set(Array.isArray(m.ids) ? m.ids : []);
  for (const e of I.entries) if (ids.has(e.id)) e.read = true;
  renderInboxButton();
  renderInbox();
}

// The entries whose row is at least half on screen in the open panel: only those are read, so a short window or a
// long inbox does not mark what nobody saw; scrolling shows (and reads) the rest.
const inboxOnScreen = new Set();
const inboxSeen = new IntersectionObserver((changes) => {
  for (const c of changes) {
    const id = Number(c.target.dataset.inboxId);
    if (c.isIntersecting && c.target.isConnected) inboxOnScreen.add(id); else inboxOnScreen.delete(id);
  }
  if ($('inbox').open) markShownRead();
}, { threshold: 0.5 });

// Marks read the unread entries the open panel shows (they stay marked new while it is open).
function markShownRead() {
  const I = S.inbox;
  const ids = [];
  for (const e of I.entries) if (!e.read && inboxOnScreen.has(e.id)) { e.read = true; I.fresh.add(e.id); ids.push(e.id); }
  if (!ids.length) return;
  I.unread = Math.max(0, I.unread - ids.length);
  // Offline, the next connection's first page lists them unread again, and the open panel marks them then.
  raw({ t: 'inbox.read', ids });
  renderInboxButton();
  renderInbox();
}

function openInbox() {
  const I = S.inbox;
  if (!I.available) return;
  const dlg = $('inbox');
  if (!dlg.open) {
    I.fresh = new Set();
    dlg.showModal();
    // Newest first, so it opens at the top (it kept the scroll of its last opening, old rows on screen).
    dlg.scrollTop = 0;
    $('inbox-list').scrollTop = 0;
  }
  // The entries known are shown (and read) at once; the page asked for replaces them.
  markShownRead();
  I.loading = raw({ t: 'inbox' });
  I.error = I.loading ? '' : 'Offline: these are the entries known; the inbox is read again once the connection is back.';
  renderInboxButton();
  renderInbox();
  dlg.querySelector('.close-x').focus();
}

function renderInboxButton() {
  const I = S.inbox;
  const b = $('btn-inbox');
  b.hidden = !I.available;
  const n = I.unread;
  const count = $('inbox-count');
  count.textContent = n > 99 ? '99+' : String(n);
  count.hidden = !(n > 0);
  b.classList.toggle('has-unread', n > 0);
  const label = n > 0 ? `Inbox: ${n} unread` : 'Inbox: nothing unread';
  b.setAttribute('aria-label', label);
  b.title = label + ' (I)';
  renderTitle();
}

function renderInbox() {
  if (!$('inbox').open) return;
  const I = S.inbox;
  const isNew = (e) => !e.read || I.fresh.has(e.id);
  const n = I.entries.filter(isNew).length;
  $('inbox-summary').textContent = (n ? `${n} new` : 'nothing new') + ' · all your boards, newest first';
  let status = '';
  if (I.error) status = I.error;
  else if (I.loading && !I.entries.length) status = 'Reading the inbox…';
  else if (!I.entries.length) status = 'Your inbox is empty: mentions of you, cards assigned to you, and comments and moves on the cards you made or are assigned to show here.';
  $('inbox-status').textContent = status;
  const alive = new Set();
  const nodes = I.entries.map((e) => {
    alive.add(e.id);
    const here = !!(e.card && e.board === S.boardId && cardById(e.card));
    const key = [isNew(e), here, e.sentence, S.boardId, S.me && S.me.user].join('|');
    const cached = inboxEls.get(e.id);
    if (cached && cached.key === key) return cached.el;
    if (cached) inboxSeen.unobserve(cached.el);
    const el = inboxEl(e, isNew(e), here);
    inboxEls.set(e.id, { key, el });
    inboxSeen.observe(el);
    return el;
  });
  for (const [id, cached] of inboxEls) {
    if (!alive.has(id)) { inboxSeen.unobserve(cached.el); inboxOnScreen.delete(id); inboxEls.delete(id); }
  }
  reconcile($('inbox-list'), nodes);
  $('inbox-more').hidden = !I.more || I.loading;
  $('inbox-all-read').hidden = !(I.unread > 0);
  renderNotifyLink();
}

// The server's sentence (`bob mentioned you on main #3: …`); an older server's entry without one is said from its
// fields.
function entrySentence(e) {
  return String(e.sentence || `${e.actor} on ${e.board}: ${e.text}`);
}

function inboxEl(e, isNew, here) {
  const sentence = entrySentence(e);
  const actor = String(e.actor ?? '');
  const text = h('span', { class: 'ie-text u', dir: 'auto' });
  if (actor && sentence.startsWith(actor + ' ')) text.append(h('b', { class: 'ie-who', text: actor }), ...withMentions(sentence.slice(actor.length)));
  else text.append(...withMentions(sentence));
  let hint;
  if (e.board !== S.boardId) hint = `Open board ${e.board}` + (e.card ? ' and the card' : '');
  else if (here) hint = 'Open the card';
  else hint = e.card ? 'That card is no longer on the board' : 'A chat line (in the feed)';
  const btn = h('button', { type: 'button', class: 'ie-link', title: hint },
    h('span', { class: 'ie-dot', 'aria-hidden': 'true', text: isNew ? '•' : '' }),
    h('time', { class: 'ie-time', text: clock(e.at) }),
    text,
    isNew ? sr(' (new)') : null);
  btn.addEventListener('click', () => goToInboxEntry(e));
  return h('li', { class: 'ie' + (isNew ? ' unread' : '') + (here ? ' here' : ''), 'data-inbox-id': e.id, 'data-kind': String(e.kind ?? '') }, btn);
}

// An entry clicked: its card's panel when the card is on the board shown; another board's entry opens that board
// (then the card).
function goToInboxEntry(e) {
  if (e.board !== S.boardId) {
    if (S.boards.length && !S.boards.some((b) => b.id === e.board)) { toast(`That is on board ${e.board}, which you can no longer open.`, 'info'); return; }
    if (!openBoard(e.board)) return;
    S.inbox.goto = { board: e.board, card: e.card || null };
    $('inbox').close();
    return;
  }
  if (!e.card) { $('inbox').close(); toast('A chat line: it is in the feed.', 'info'); return; }
  openInboxCard(e.card);
}

function openInboxCard(id) {
  if (!cardById(id)) { toast(GONE, 'info'); return; }
  if ($('inbox').open) $('inbox').close();
  selectCard(id, false);
  openDetail(id);
}

// A browser notification, only where the user allowed them (asked for by the panel's link, a click).
function notifyEntry(e) {
  if (!('Notification' in window) || Notification.permission !== 'granted') return;
  try {
    const n = new Notification('Corkboard', { body: entrySentence(e), tag: 'corkboard-inbox-' + e.id, icon: '/icon.svg' });
    n.addEventListener('click', () => { window.focus(); n.close(); openInbox(); });
  } catch { /* a browser that shows notifications only from a service worker */ }
}

function renderNotifyLink() {
  const p = 'Notification' in window ? Notification.permission : 'unsupported';
  $('inbox-notify').hidden = p !== 'default';
  $('inbox-notify-state').textContent = p === 'granted' ? 'Browser notifications are on.'
    : p === 'denied' ? 'Browser notifications are blocked for this page (the browser’s site settings can allow them).' : '';
}

async function askNotifications() {
  if (!('Notification' in window)) return;
  try { await Notification.requestPermission(); } catch { /* refused */ }
  renderNotifyLink();
}

// ---------- toasts ----------

// A modal panel is in the browser's top layer, over everything outside it: the toasts go inside the open panel (and
// back to the page when it closes), so a refusal is seen while a card's panel is open.
function placeToasts() {
  const box = $('toasts');
  const home = [...document.querySelectorAll('dialog[open]')].pop() || document.body;
  if (box.parentElement !== home) home.append(box);
}

// A notice removed under the focus (its button was pressed) gives the focus to what its action names (the box the
// text is in), else to the open panel's close button, else to the selected card: never to the page's body, where the
// next Tab starts over, and never to whatever the keyboard passed on its way to the notice (an Archive button).
function refocusAfterNotice(target) {
  const active = document.activeElement;
  if (active && active !== document.body && active.isConnected) return;
  if (target && target.isConnected && target.getClientRects().length) { target.focus(); return; }
  const open = document.querySelector('dialog[open]');
  if (open) { (open.querySelector('.close-x') || open).focus(); return; }
  focusSelection();
}

// A notice about cards: `#4, #5: the reason`.
const CARDS_NAMED = /^((?:#\d+, )*#\d+): ([\s\S]+)$/;

function toast(text, kind = 'info', ms, actions = []) {
  placeToasts();
  const box = $('toasts');
  // Refusals of the same kind for several cards (a bulk move into a full column) make one notice naming them all:
  // `#4, #5, #6: DOING is at its WIP limit of 3`.
  const named = !actions.length && CARDS_NAMED.exec(text);
  if (named) {
    const [, cards, reason] = named;
    const same = [...box.children].find((t) => t.dataset.reason === kind + '\n' + reason);
    if (same) {
      const all = [...new Set([...same.dataset.cards.split(', '), ...cards.split(', ')])];
      same.remove();
      text = `${all.join(', ')}: ${reason}`;
    }
  }
  const buttons = actions.map((a) => h('button', { type: 'button', class: 'toast-action', text: a.label,
    onclick: () => { el.remove(); a.run(); refocusAfterNotice(a.focus && a.focus()); } }));
  const el = h('div', { class: 'toast ' + kind, role: kind === 'error' ? 'alert' : 'status' }, utext('span', '', text),
    ...buttons, h('button', { type: 'button', class: 'icon', 'aria-label': 'Dismiss', text: '×',
      onclick: () => { el.remove(); refocusAfterNotice(); } }));
  // The same notice again replaces the one shown (its time starts again) instead of stacking copies.
  el.dataset.say = kind + '\n' + text;
  const cardsNamed = !actions.length && CARDS_NAMED.exec(text);
  if (cardsNamed) { el.dataset.cards = cardsNamed[1]; el.dataset.reason = kind + '\n' + cardsNamed[2]; }
  if (!actions.length) for (const old of [...box.children]) if (old.dataset.say === el.dataset.say) old.remove();
  box.append(el);
  while (box.childElementCount > 4) box.firstChild.remove();
  setTimeout(() => el.remove(), ms || (kind === 'error' ? 8000 : 3500));
  return el;
}

// ---------- gate screens ----------

function showGate(title, text, hint, retry) {
  $('app').hidden = true;
  for (const el of document.querySelectorAll('#gate .gate-draft')) el.remove();
  for (const d of document.querySelectorAll('dialog[open]')) d.close();
  $('gate').hidden = false;
  $('toasts').replaceChildren();
  $('gate-title').textContent = title;
  $('gate-text').textContent = text || '';
  $('gate-hint').textContent = hint || '';
  $('gate-retry').hidden = !retry;
}

function showInvite(expired) {
  showGate(expired ? 'You are signed out' : 'Welcome to Corkboard',
    'Open the invite link you were given (corkd invite …).',
    'The link looks like https://host/#token=…&board=…; it signs this browser in.', false);
}

// ---------- start ----------

function bindStatic() {
  document.addEventListener('keydown', onKey);
  const board = $('board');
  board.addEventListener('pointerdown', onPointerDown);
  board.addEventListener('click', onBoardClick);
  board.addEventListener('focusin', (e) => {
    const c = e.target.closest && e.target.closest('.card');
    if (c && S.sel.card !== c.dataset.cardId && !S.drag) { S.sel = { card: c.dataset.cardId, col: null }; renderBoard(); }
  });
  board.addEventListener('contextmenu', (e) => { if (P || S.drag) e.preventDefault(); });
  window.addEventListener('pointermove', onPointerMove, { passive: false });
  window.addEventListener('pointerup', onPointerUp);
  window.addEventListener('pointercancel', onPointerCancel);
  // once a touch drag has begun, the page must not scroll under the finger
  document.addEventListener('touchmove', (e) => { if (S.drag && S.drag.mode === 'pointer') e.preventDefault(); }, { passive: false });

  $('board-pick').addEventListener('change', (e) => {
    const id = e.target.value;
    if (id && id !== S.boardId) openBoard(id);
  });
  const filter = $('app').querySelector('input[name="filter"]');
  let debounce = 0;
  filter.addEventListener('input', () => {
    clearTimeout(debounce);
    debounce = setTimeout(() => {
      const q = filter.value.trim();
      if (q === S.filter.q) return;
      S.filter.q = q;
      S.filter.sent = q;
      if (!q) { S.filter.cards = null; S.filter.error = ''; $('filter-error').textContent = ''; document.body.classList.remove('filtering'); renderBoard(); }
      raw({ t: 'filter', q });
    }, 250);
  });
  filter.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && filter.value) { e.preventDefault(); filter.value = ''; filter.dispatchEvent(new Event('input')); }
    else if (e.key === 'Escape' || e.key === 'Enter') { e.preventDefault(); focusSelection(); }
  });
  $('chat-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const input = $('chat-input');
    if (!input.value.trim()) return;
    if (overLimit(input.value, CHAT_MAX_BYTES, 'The message')) return;
    S.sentText = { kind: 'chat', card: undefined, text: input.value, field: input };
    op({ kind: 'chat', text: input.value });
    input.value = '';
  });
  watchFeed();
  // back in this window (after `cork board create` in a terminal, say): the board picker asks for the list again
  window.addEventListener('focus', () => {
    if (Date.now() - (S.boardsAsked || 0) < 5000) return;
    S.boardsAsked = Date.now();
    raw({ t: 'boards' });
  });
  // the filter's example fits a phone's width too (the whole one is cut off there)
  const filterBox = document.querySelector('input[name="filter"]');
  const narrow = window.matchMedia('(max-width: 720px)');
  const wide = filterBox.placeholder; // index.html's
  const fitPlaceholder = () => { filterBox.placeholder = narrow.matches ? 'Filter: label:bug @me …' : wide; };
  fitPlaceholder();
  narrow.addEventListener('change', fitPlaceholder);
  $('btn-undo').addEventListener('click', () => intent({ t: 'undo' }));
  $('btn-redo').addEventListener('click', () => intent({ t: 'redo' }));
  $('btn-archived').addEventListener('click', openArchived);
  $('btn-help').addEventListener('click', () => $('help').showModal());
  $('btn-inbox').addEventListener('click', openInbox);
  $('inbox-notify').addEventListener('click', askNotifications);
  $('inbox-all-read').addEventListener('click', () => { if (raw({ t: 'inbox.read', all: true })) $('inbox-all-read').hidden = true; });
  $('inbox-more').addEventListener('click', () => {
    const I = S.inbox;
    const last = I.entries[I.entries.length - 1];
    if (last && raw({ t: 'inbox', before: last.id })) { I.loading = true; renderInbox(); }
  });
  $('inbox').addEventListener('close', () => { S.inbox.fresh = new Set(); });
  $('banner-retry').addEventListener('click', () => { if (!S.open && !S.stopped) { S.retry = 0; connect(); } });
  $('bulk-move').addEventListener('click', bulkMove);
  $('bulk-clear').addEventListener('click', () => { S.multi.clear(); renderBoard(); });
  $('gate-retry').addEventListener('click', () => { history.replaceState(null, '', location.pathname); location.reload(); });
  $('btn-signout').addEventListener('click', async () => {
    try { await fetch('/session', { method: 'DELETE', credentials: 'same-origin' }); } catch { /* gone anyway */ }
    stop();
    showInvite(true);
  });
  for (const b of document.querySelectorAll('[data-close]')) b.addEventListener('click', () => b.closest('dialog').close());
  for (const d of document.querySelectorAll('dialog')) {
    d.addEventListener('click', (e) => { if (e.target === d) d.close(); });
    d.addEventListener('close', placeToasts); // the toasts leave a panel that closes
  }
  window.addEventListener('beforeunload', (e) => { if (S.queue.length && !S.stopped) e.preventDefault(); });
  document.addEventListener('visibilitychange', () => {
    if (!S.open || S.drag) return;
    if (document.hidden) sendPresence({ state: 'idle' });
    else sendPresence(S.detail ? { state: 'viewing', card: S.detail } : { state: 'viewing' });
  });
  window.addEventListener('hashchange', () => {
    const params = new URLSearchParams(location.hash.slice(1));
    // a new invite link opened in this tab: start again with it (sign in as its user), as a fresh tab would
    if (params.get('token')) { stop(); location.reload(); return; }
    const b = params.get('board');
    if (b && ID_RE.test(b) && b !== S.boardId) openBoard(b);
  });
}

async function start() {
  bindStatic();
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get('token');
  const board = params.get('board');
  S.wantBoard = board && ID_RE.test(board) ? board : null;
  let tokenRefused = false;
  if (token) {
    try {
      const r = await fetch('/session', {
        method: 'POST', body: JSON.stringify({ token }), headers: { 'content-type': 'application/json' }, credentials: 'same-origin',
      });
      tokenRefused = !r.ok;
    } catch { tokenRefused = true; }
    // the token leaves the address bar (and the history) at once
    history.replaceState(null, '', location.pathname + location.search + (S.wantBoard ? '#board=' + encodeURIComponent(S.wantBoard) : ''));
  }
  let r;
  try {
    r = await fetch('/session', { credentials: 'same-origin', cache: 'no-store' });
  } catch {
    showGate('The server cannot be reached', 'Check that corkd is running, then try again.', '', true);
    return;
  }
  if (r.status === 401) {
    showInvite(false);
    if (tokenRefused) $('gate-hint').textContent = 'The invite link in the address was not accepted (revoked, or mistyped). Ask for a new one.';
    return;
  }
  if (!r.ok) { showGate('Something went wrong', `The server answered ${r.status}.`, '', true); return; }
  try { const j = await r.json(); if (j && j.user) S.me = { user: String(j.user), name: String(j.user) }; } catch { /* the welcome says */ }
  $('gate').hidden = true;
  $('app').hidden = false;
  renderBoard();
  renderPresence();
  restoreQueue();
  renderStatus();
  connect();
}

start();
