// A session page's older parts, fetched when asked for: earlier messages
// of the latest thread ("Load earlier"), and earlier threads, each in a
// <details> opened by the reader.
//
//   [data-load-earlier] [data-action="load-earlier"][data-url]
//   details[data-action="open-thread"][data-url] > [data-messages]

import { fetchFragment } from './http.js';
import { el } from './dom.js';
import { showError } from './alerts.js';
import { setBusy } from './actions.js';

export async function loadEarlier(el) {
  const box = el.closest('[data-load-earlier]');
  if (!box) return;
  const anchor = box.nextElementSibling;
  const before = anchor?.getBoundingClientRect().top;
  const hadFocus = document.activeElement === el;
  setBusy(el, true);
  let frag;
  try {
    frag = await fetchFragment(el.dataset.url);
  } catch (err) {
    setBusy(el, false);
    showError(`Could not load earlier messages: ${err.message}`);
    return;
  }
  const nextButton = frag.querySelector('[data-action="load-earlier"]');
  box.replaceWith(frag);
  // Keep what the reader was looking at in place, rather than letting the
  // new messages push it down.
  if (anchor) window.scrollBy(0, anchor.getBoundingClientRect().top - before);
  if (hadFocus) nextButton?.focus({ preventScroll: true });
}

async function openThread(details) {
  const box = details.querySelector('[data-messages]');
  if (!box || details.dataset.loaded) return;
  details.dataset.loaded = 'loading';
  const note = el('p', 'loading', 'Loading…');
  box.replaceChildren(note);
  try {
    box.replaceChildren(await fetchFragment(details.dataset.url));
    details.dataset.loaded = 'true';
  } catch (err) {
    delete details.dataset.loaded; // opening it again retries
    note.className = 'failed';
    note.textContent = `Could not load this thread: ${err.message}`;
  }
}

export function initThreads() {
  // toggle does not bubble; a capturing listener sees every <details>.
  document.addEventListener(
    'toggle',
    (e) => {
      const d = e.target;
      if (d instanceof HTMLDetailsElement && d.open && d.dataset.action === 'open-thread') {
        openThread(d);
      }
    },
    true,
  );
}

