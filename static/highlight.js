// Highlight the message a search hit links to (/s/{id}#m-{message}): scroll
// to it and mark it. A message paged out of the first render is brought in
// through "Load earlier" until it appears or nothing earlier remains; one
// that never appears leaves the page as it is, at its newest messages.
// Messages are found by data-message-id, which every rendering of a
// message (page, fragment, event stream) carries.

import { letGo } from './scroll.js';

const maxPages = 50; // a bound on the loop: each page is one request

function target() {
  const hash = decodeURIComponent(location.hash.slice(1));
  return hash.startsWith('m-') ? hash : '';
}

function show(el) {
  letGo(); // new text arriving does not take the reader away from it
  for (let d = el.closest('details'); d; d = d.parentElement?.closest('details')) d.open = true;
  el.classList.add('search-target');
  el.scrollIntoView({ block: 'center' });
}

// loadEarlier clicks "Load earlier" and resolves once its button is gone
// (the fragment replaced it), or false when there is none.
function loadEarlier() {
  const button = /** @type {HTMLElement | null} */ (document.querySelector('[data-action="load-earlier"]'));
  if (!button) return Promise.resolve(false);
  return new Promise((resolve) => {
    const obs = new MutationObserver(() => {
      if (!button.isConnected) {
        obs.disconnect();
        resolve(true);
      }
    });
    obs.observe(document.body, { childList: true, subtree: true });
    button.click();
  });
}

// highlight shows the message the address names, if any (static/swap.js
// calls it once it has put in the session the address names).
export async function highlight() {
  const id = target();
  if (!id) return;
  for (let i = 0; i <= maxPages; i++) {
    const el = document.querySelector(`[data-message-id="${CSS.escape(id.slice(2))}"]`);
    if (el) {
      show(el);
      return;
    }
    if (!(await loadEarlier())) return;
  }
}

// initHighlight shows the message the address names when the address
// changes; page-session.js calls highlight as each session's page starts.
export function initHighlight() {
  window.addEventListener('hashchange', highlight);
}
