// The session page's event stream, opened once, and the one dispatcher of
// its events: a module says what it does with an event through on(), and
// every event is handled whole, in the order the server sent it, by each
// of its handlers in the order they were added. A handler may be async
// (a snapshot that fetches what the page missed): the events behind it
// wait. The heading and the tab's title follow the session's title.

import { parseData } from './dom.js';
import { EV } from './events.js';

const body = document.body;

// stream is the page's EventSource, for other modules of the tab to listen
// to; null when the page follows no stream.
export let stream = null;

// setTitle shows a session's title in its heading and the tab's title.
export function setTitle(title) {
  const h1 = /** @type {HTMLElement | null} */ (document.querySelector('[data-testid="session-title"]'));
  // Without a title of its own a fork is "Fork of …": the page says
  // which name stands in (data-untitled).
  const text = title || h1?.dataset.untitled || 'Untitled';
  if (h1) h1.textContent = text;
  document.title = text;
}

// handlers are what each event is given to, by event name, in order.
/** @type {Map<string, Array<(data: any) => unknown>>} */
const handlers = new Map();
/** @type {Array<[string, unknown]>} */
const backlog = [];
// draining is the signal of the session whose events are being handled
// (null: none is): an old session's handler still awaiting something
// must not hold up the next session's events.
/** @type {AbortSignal | null} */
let draining = null;
/** @type {(name: string) => void} */
let beforeEach = () => {};

/**
 * on adds a handler of the named event, given its parsed JSON data (null
 * when it is not JSON). Handlers are added before the stream opens or
 * while the page starts, never later.
 * @param {string} name
 * @param {(data: any) => unknown} fn
 */
export function on(name, fn) {
  let list = handlers.get(name);
  if (!list) {
    list = [];
    handlers.set(name, list);
    stream?.addEventListener(name, (e) => enqueue(name, e));
  }
  list.push(fn);
}

/** beforeEvery runs fn before the handlers of every event (chat.js
 * flushes buffered text there).
 * @param {(name: string) => void} fn */
export function beforeEvery(fn) {
  beforeEach = fn;
}

function enqueue(name, e) {
  backlog.push([name, parseData(e)]);
  drain();
}

// ended is the signal of the session the stream follows: once it is
// aborted (static/swap.js put another session in), what is still queued
// is dropped rather than drawn on the next session's page.
let ended = AbortSignal.abort();

async function drain() {
  const signal = ended;
  if (draining === signal) return;
  draining = signal;
  try {
    while (backlog.length && !signal.aborted) {
      const [name, data] = /** @type {[string, unknown]} */ (backlog.shift());
      beforeEach(name);
      for (const fn of handlers.get(name) || []) {
        if (signal.aborted) break; // a handler before this one awaited a swap
        try {
          await fn(data);
        } catch (err) {
          console.error(`myco: ${name} event`, err);
        }
      }
    }
  } finally {
    if (draining === signal) draining = null;
  }
}

/** openStream follows the session of the page (body[data-events]) until
 * signal is aborted: then the stream is closed and its handlers and
 * queued events go with it, for the next session's to be added.
 * @param {AbortSignal} signal */
export function openStream(signal) {
  ended = signal;
  handlers.clear();
  backlog.length = 0;
  beforeEach = () => {};
  stream = null;
  delete body.dataset.stream;
  const url = body.dataset.events;
  if (body.dataset.page !== 'session' || !url || body.dataset.archived === 'true') return;
  // EventSource reconnects by itself; each reconnect starts with a snapshot.
  const es = new EventSource(url);
  stream = es;
  signal.addEventListener('abort', () => {
    es.close();
    if (stream === es) stream = null;
  });
  stream.addEventListener('open', () => {
    body.dataset.stream = 'open';
  });
  stream.addEventListener('error', () => {
    body.dataset.stream = 'closed';
  });
  for (const name of handlers.keys()) stream.addEventListener(name, (e) => enqueue(name, e));
  const onTitle = (d) => {
    if (d && typeof d.title === 'string') setTitle(d.title);
  };
  on(EV.snapshot, onTitle);
  on(EV.title, onTitle);
}
