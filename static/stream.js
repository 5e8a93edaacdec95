// The session page's event stream, opened once: other modules of the tab
// listen to it. The heading and the tab's title follow the session's
// title from it.

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

export function openStream() {
  const url = body.dataset.events;
  if (body.dataset.page !== 'session' || !url || body.dataset.archived === 'true') return;
  // EventSource reconnects by itself; each reconnect starts with a snapshot.
  stream = new EventSource(url);
  stream.addEventListener('open', () => {
    body.dataset.stream = 'open';
  });
  stream.addEventListener('error', () => {
    body.dataset.stream = 'closed';
  });
  const onTitle = (e) => {
    const data = parseData(e);
    if (data && typeof data.title === 'string') setTitle(data.title);
  };
  stream.addEventListener(EV.snapshot, onTitle);
  stream.addEventListener(EV.title, onTitle);
}
