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
  if (!box || el.getAttribute('aria-busy') === 'true') return; // already on its way
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
  // Another session was swapped in meanwhile (swap.js): not its messages.
  if (!box.isConnected) return;
  const nextButton = frag.querySelector('[data-action="load-earlier"]');
  box.replaceWith(frag);
  // Keep what the reader was looking at in place, rather than letting the
  // new messages push it down.
  if (anchor) window.scrollBy(0, anchor.getBoundingClientRect().top - before);
  if (hadFocus) nextButton?.focus({ preventScroll: true });
  // However these came (a click, a key, a scroll), the next button is the
  // one to watch now (loadEarlierOnScroll).
  document.dispatchEvent(new Event(earlierLoaded));
}

const earlierLoaded = 'myco:earlier-loaded';

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

/** loadEarlierOnScroll loads the latest thread's earlier messages as the
 * reader scrolls up towards them, half a screen ahead, until signal is
 * aborted: the page opens with its newest few (web.PageRecentLimit), so
 * that a long session is quick to open, and scrolling up still reads on
 * without a click. The button stays for keyboards and screen readers.
 * @param {AbortSignal} signal */
export function loadEarlierOnScroll(signal) {
  const near = new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        if (!e.isIntersecting) continue;
        near.unobserve(e.target);
        loadEarlier(e.target);
      }
    },
    { rootMargin: '50% 0px 0px 0px' },
  );
  // One button at a time: the one on the page now. A button replaced by a
  // click is dropped here, and its successor watched, so that scrolling
  // still reads on after the button was used.
  const watch = () => {
    near.disconnect();
    const b = document.querySelector('#messages [data-action="load-earlier"]');
    if (b && !signal.aborted) near.observe(b);
  };
  document.addEventListener(earlierLoaded, watch, { signal });
  signal.addEventListener('abort', () => near.disconnect());
  watch();
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

