// The conversation of a session page as it happens: messages that stream
// in (message.start, text.delta, message.blocks), become the server's
// rendering when they end (message.end), or are dropped
// (message.discard); each turn's usage or error line; and catching up
// after the stream was down (the snapshot's partial text and blocks, the
// document's latest messages). The DOM of a message being written is
// streaming.js's; tool calls inside a message are tools.js's.
//
//   #messages                            the latest thread's messages
//   [data-thread] around it              which thread a resync fetches
//   [data-testid="message"][data-message-id][data-streaming]
//   [data-testid="turn-error"][data-turn]
//   [data-testid="turn-usage"]           usage.js places it
//
// Text that arrives as JSON only ever goes in through textContent; HTML
// comes from the server (message.end), already sanitized, and is parsed
// through a <template>.

import { fetchFragment } from './http.js';
import { el, fragment } from './dom.js';
import { keepBottom } from './scroll.js';
import { box, messageEl, setToolState, toolEl } from './thread.js';
import { placeLine, placeLines } from './usage.js';
import { showPartial, write as writeStreaming } from './streaming.js';

const body = document.body;

// --- Messages ---------------------------------------------------------

// place puts a new element at the end of the conversation.
function place(node) {
  const b = box();
  if (!b) return;
  b.querySelector(':scope > .empty')?.remove();
  b.append(node);
}

// startMessage is the element a streamed message grows in, made once.
export function startMessage(id, role) {
  const found = messageEl(id);
  if (found) return found;
  const m = el('article', `message ${role === 'user' ? 'user' : 'assistant'} streaming`);
  m.setAttribute('data-testid', 'message');
  m.dataset.messageId = id;
  m.dataset.role = role || 'assistant';
  m.dataset.streaming = '';
  m.setAttribute('aria-busy', 'true');
  const who = role === 'user' ? 'You' : 'Agent';
  m.setAttribute('aria-label', who);
  const head = el('header', 'message-head');
  head.append(el('span', 'who', who));
  m.append(head);
  place(m);
  return m;
}

// endStreaming marks what is left streaming as ended when no message.end
// will come for it; its text stays.
function endStreaming(m) {
  delete m.dataset.streaming;
  m.removeAttribute('aria-busy');
  m.classList.remove('streaming');
  for (const t of m.querySelectorAll('[data-testid="tool-call"][data-running]')) setToolState(t, '');
}

function endAllStreaming() {
  for (const m of box()?.querySelectorAll('[data-testid="message"][data-streaming]') || []) endStreaming(m);
}

// settle ends what only a running turn has on the page: streaming
// messages, calls marked running or waiting.
export function settle() {
  endAllStreaming();
  for (const t of box()?.querySelectorAll('[data-testid="tool-call"]:is([data-running], [data-awaiting])') || []) {
    setToolState(t, '');
  }
}

// Deltas: the first one after a quiet spell goes into the page at once;
// those that arrive before the next frame are merged and written then, so
// a fast stream costs one DOM write per frame. Rendered blocks
// (message.blocks) join the same frame, after the text they cover. A
// hidden tab gets no frames: what arrived waits in pending, and any other
// event writes it first.
const pending = new Map(); // message id → {text, html, upto, live}
let frame = 0;

function write(id, { text, html, upto, live }) {
  const m = messageEl(id);
  if (m && !('streaming' in m.dataset)) return; // it has ended: a late delta
  writeStreaming(m || startMessage(id, 'assistant'), text, html, upto, live);
}

// queue merges what arrived for a message until the next frame; live,
// the last block while it grows, is the latest (null: none came).
function queue(id, text, html, upto, live = null) {
  const p = pending.get(id) || { text: '', html: '', upto: -1, live: null };
  p.text += text;
  p.html += html;
  if (upto >= 0) p.upto = upto;
  if (live !== null) p.live = live;
  pending.set(id, p);
  if (!frame) frame = requestAnimationFrame(flushDeltas);
}

export function onDelta(d) {
  if (!d || typeof d.text !== 'string') return;
  if (frame) {
    queue(d.message, d.text, '', -1);
    return;
  }
  write(d.message, { text: d.text, html: '', upto: -1, live: null });
  keepBottom();
  frame = requestAnimationFrame(flushDeltas);
}

// onBlocks takes blocks of the answer the server rendered as they
// completed, and its last block while it grows (tail; static/streaming.js
// shows them).
export function onBlocks(d) {
  if (!d?.message || typeof d.html !== 'string' || !Number.isInteger(d.upto)) return;
  queue(d.message, '', d.html, d.upto, typeof d.tail === 'string' ? d.tail : '');
}

// dropDeltas forgets the text still waiting for a frame: its session's
// page is gone (static/swap.js).
export function dropDeltas() {
  if (frame) cancelAnimationFrame(frame);
  frame = 0;
  pending.clear();
}

export function flushDeltas() {
  if (frame) cancelAnimationFrame(frame);
  frame = 0;
  if (pending.size === 0) return;
  for (const [id, p] of pending) write(id, p);
  pending.clear();
  keepBottom();
}

// onMessageDiscard drops an in-progress message the server will not keep:
// a response cut by a transient failure that is about to be retried, or
// one stopped before it said anything.
export function onMessageDiscard(d) {
  const m = d?.message && messageEl(d.message);
  if (m && 'streaming' in m.dataset) m.remove();
}

export function onMessageStart(d) {
  if (d?.message) startMessage(d.message, d.role);
  keepBottom();
}

// --- Finished messages --------------------------------------------------------

// adoptToolState moves what the live element knew about its calls (a
// result from tool.end, a running or waiting call) into the server's
// rendering, which has only what the document held when it was rendered.
function adoptToolState(old, next) {
  if (!old) return;
  for (const call of next.querySelectorAll('[data-testid="tool-call"]')) {
    const live = old.querySelector(`[data-testid="tool-call"][data-tool-use-id="${CSS.escape(call.dataset.toolUseId || '')}"]`);
    if (!live) continue;
    const result = live.querySelector('[data-testid="tool-result"]');
    if (result && !call.querySelector('[data-testid="tool-result"]')) call.append(result);
    else if (!result && 'awaiting' in live.dataset) setToolState(call, 'approval');
    else if (!result && 'running' in live.dataset) setToolState(call, 'running');
  }
}

// foldResults shows each result beside its call when the call is on the
// page, as the page does on reload; it reports whether the message has
// anything left to show.
function foldResults(next) {
  for (const r of next.querySelectorAll(':scope > [data-testid="tool-result"]')) {
    const call = toolEl(r.dataset.toolUseId);
    if (!call) continue;
    setToolState(call, '');
    const had = call.querySelector('[data-testid="tool-result"]');
    if (had) had.replaceWith(r);
    else call.append(r);
  }
  return next.querySelector(':scope > :not(.message-head)') !== null;
}

export function onMessageEnd(d) {
  if (!d?.message) return;
  pending.delete(d.message);
  const old = messageEl(d.message);
  const frag = fragment(typeof d.html === 'string' ? d.html : '');
  // An answer a retry replaced comes again, folded as a reload shows it.
  const folded = frag.querySelector('[data-testid="replaced-answer"]');
  if (folded) {
    (old?.closest('[data-testid="replaced-answer"]') || old)?.replaceWith(folded);
    return;
  }
  const next = frag.querySelector('[data-testid="message"]');
  if (!next) {
    if (old) endStreaming(old);
    return;
  }
  adoptToolState(old, next);
  if (!foldResults(next)) {
    old?.remove();
    return;
  }
  if (old) old.replaceWith(next);
  else place(next);
  keepBottom();
}

// --- Turns --------------------------------------------------------------------

function turnLine(className, testid, turn) {
  const sel = `[data-testid="${testid}"][data-turn="${CSS.escape(turn || '')}"]`;
  let line = turn ? /** @type {HTMLElement | null} */ (box()?.querySelector(sel)) : null;
  if (line) return line;
  line = el('p', className);
  line.setAttribute('data-testid', testid);
  line.dataset.turn = turn || '';
  place(line);
  return line;
}

// onTurnEnd shows the turn's usage line, rendered by the server from the
// document as a reload shows it (chat.js has ended the turn's live state
// first; the side panel's totals come in the panel event).
export function onTurnEnd(d) {
  const b = box();
  const line = typeof d?.html === 'string' && d.html ? fragment(d.html).querySelector('[data-testid="turn-usage"]') : null;
  if (b && line) {
    b.querySelector(':scope > .empty')?.remove();
    placeLine(b, /** @type {HTMLElement} */ (line));
  }
  keepBottom();
}

// onTurnError says the turn failed, once (chat.js has ended the turn's
// live state first).
export function onTurnError(d) {
  // A failed turn's error is saved with its answer, which came just
  // before (message.end) and shows it, after a reload too: no second line.
  const last = [...(box()?.querySelectorAll(':scope > [data-testid="message"]') || [])].pop();
  if (d?.turn && last?.querySelector('[data-testid="message-error"]')) {
    keepBottom();
    return;
  }
  const line = turnLine('turn-error', 'turn-error', d?.turn);
  line.setAttribute('role', 'alert');
  const msg = typeof d?.error === 'string' && d.error ? d.error : 'unknown error';
  line.replaceChildren(el('strong', '', 'The turn failed: '), msg);
  keepBottom();
}

// --- Snapshot ----------------------------------------------------------------

// applyPartial brings the message being written up to the snapshot's text
// and rendered blocks without disturbing a tab that already shows them.
export function applyPartial(p) {
  if (!p?.message) return;
  const m = messageEl(p.message);
  if (m && !('streaming' in m.dataset)) return; // already finished here
  showPartial(m || startMessage(p.message, 'assistant'), p);
}

// resync merges the document's latest messages into the page after the
// stream was down: nothing is replayed, so messages that ended meanwhile
// would be missing. Messages already shown stay; streamed ones the
// document now holds are replaced by their rendering.
export async function resync(snap) {
  const b = box();
  const thread = /** @type {HTMLElement | null} */ (b?.closest('[data-thread]'))?.dataset.thread;
  if (!b || thread === undefined) return;
  let frag;
  try {
    const url = `/s/${encodeURIComponent(body.dataset.sessionId)}/messages?thread=${encodeURIComponent(thread)}&before=-1`;
    frag = await fetchFragment(url);
  } catch {
    return;
  }
  // Another session was swapped in meanwhile (static/swap.js): these
  // messages are not its.
  if (!b.isConnected) return;
  let prev = null;
  for (const m of /** @type {HTMLElement[]} */ ([...frag.children]).filter((n) => n.matches('[data-testid="message"]'))) {
    const have = messageEl(m.dataset.messageId);
    if (have) {
      if ('streaming' in have.dataset) have.replaceWith(m);
      prev = m.isConnected ? m : have;
      continue;
    }
    if (!foldResults(m)) continue;
    if (prev) prev.after(m);
    else {
      const first = b.querySelector('[data-testid="message"][data-streaming]');
      if (first) first.before(m);
      else place(m);
    }
    prev = m;
  }
  // Usage lines of turns that ended meanwhile, after their answers.
  placeLines(b, frag);
  // A streamed message the document lacks and the snapshot does not carry
  // on was dropped by the server (a retry starts over).
  for (const m of /** @type {NodeListOf<HTMLElement>} */ (b.querySelectorAll('[data-testid="message"][data-streaming]'))) {
    if (m.dataset.messageId !== snap.partial?.message) m.remove();
  }
}
