// The DOM of a message while it streams. The server renders each
// top-level block of the answer once it is complete (message.blocks, the
// same goldmark + bluemonday + chroma path as the final message); the
// unfinished rest, the tail, is shown as the plain text it is. So a
// message being written is one or more text runs (a tool call between two
// starts a new one), each:
//
//   <div class="md streaming-text">      the run, styled as the final .md
//     …rendered blocks…                  HTML from the server, via <template>
//     <div class="streaming-live">       the last block while it grows, when
//                                        the server renders it (an open code
//                                        fence, a table: message.blocks' tail)
//     <p class="plain streaming-tail">   the tail: one text node, hidden
//                                        while the live block shows it
//
// The raw text is counted in UTF-16 code units, as the server's `upto` is:
// everything before `upto` is shown by the blocks, the rest by the tail.
// message.end then replaces the whole message with blocks rendered the
// same way, so those already shown do not move.

import { el, fragment } from './dom.js';

// What each streaming message element holds: its raw text so far, the
// HTML of its blocks so far (to tell, from a snapshot, what is new),
// where those blocks end in the text, and the live last block's HTML.
const states = new WeakMap();
// Where each run's text starts in its message's text.
const runStarts = new WeakMap();

function state(m) {
  let s = states.get(m);
  if (!s) {
    s = { raw: '', html: '', upto: 0, live: '' };
    states.set(m, s);
  }
  return s;
}

// run is the message's current text run: the last child, unless something
// (a tool call) came after it.
function run(m) {
  const last = m.lastElementChild;
  if (last?.classList.contains('streaming-text') && last.lastElementChild?.classList.contains('streaming-tail')) {
    return last;
  }
  const r = el('div', 'md streaming-text');
  const tail = el('p', 'plain streaming-tail');
  tail.append(document.createTextNode(''));
  r.append(tail);
  m.append(r);
  runStarts.set(r, state(m).raw.length);
  return r;
}

// streamedText is the raw text written into m so far.
export function streamedText(m) {
  return state(m).raw;
}

// freshTail replaces the plain tail by a new element once blocks took
// its text: the blocks now stand where it stood, and the browser would
// count the old element, pushed down below them, as a layout shift of its
// whole height, though no text on the screen moved.
function freshTail(tail) {
  const next = el('p', 'plain streaming-tail');
  next.append(document.createTextNode(''));
  next.hidden = tail.hidden;
  tail.replaceWith(next);
  return next;
}

// showLive puts the live last block (message.blocks' tail) in place of
// the plain tail, or takes it away when live is "". Both change in the
// same frame as the blocks before them, so what moves from the live block
// into the blocks does not move on the screen.
function showLive(r, tail, live) {
  let box = r.querySelector(':scope > .streaming-live');
  if (!live) {
    box?.remove();
    tail.hidden = false;
    return;
  }
  if (!box) {
    box = el('div', 'streaming-live');
    tail.before(box);
  }
  box.replaceChildren(fragment(live));
  tail.hidden = true;
}

// write adds to m what arrived since the last frame, in one DOM write
// per run: text (deltas), then html, blocks that complete the text up to
// upto, and live, the last block while it grows (null: as it was). Blocks
// always follow the text they cover.
export function write(m, text, html = '', upto = -1, live = null) {
  const s = state(m);
  if (!text && upto < 0) return;
  const r = run(m);
  let tail = r.lastElementChild;
  s.raw += text;
  if (upto < 0 || (html === '' && upto <= s.upto && (live === null || live === s.live))) {
    tail.firstChild.appendData(text);
    return;
  }
  if (html) {
    (r.querySelector(':scope > .streaming-live') || tail).before(fragment(html));
    tail = freshTail(tail);
  }
  s.html += html;
  s.upto = Math.max(s.upto, upto);
  tail.firstChild.data = s.raw.slice(Math.max(s.upto, runStarts.get(r) ?? 0));
  if (live !== null) {
    s.live = live;
    showLive(r, tail, live);
  }
}

// showPartial brings m up to a snapshot's partial ({text, html, upto})
// without touching what it already shows: every tab of a session may get
// the snapshot of another's (re)connect, and a tab may be ahead of it.
export function showPartial(m, p) {
  const text = typeof p.text === 'string' ? p.text : '';
  const html = typeof p.html === 'string' ? p.html : '';
  const upto = Number.isInteger(p.upto) && p.upto > 0 ? p.upto : 0;
  const live = typeof p.tail === 'string' ? p.tail : '';
  const s = state(m);
  if (s.raw.startsWith(text) && s.html.startsWith(html)) return; // as far or further
  if (text.startsWith(s.raw) && html.startsWith(s.html)) {
    write(m, text.slice(s.raw.length), html.slice(s.html.length), upto, live);
    return;
  }
  // Something else was shown (a retry started over): show the snapshot's.
  for (const r of m.querySelectorAll(':scope > .streaming-text')) r.remove();
  states.delete(m);
  write(m, text, html, upto, live);
}
