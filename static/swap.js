// Switching sessions in place. A click on a link to another session of
// this profile (the sidebar, a search hit, the fork lineage, the side
// panel's forks) fetches that session's part of the page, rendered by the
// server as on a page load (GET /s/{id} with X-Myco-Fragment: 1:
// web.SessionFragment), and puts it in place of the shown one. The page
// keeps its header, its sidebar and the profile's stream; the shown
// session's listeners, stream, timers and observers go with the signal
// its parts were started with, and the next session's parts start with a
// new one. Without this, a switch loads a new document: Chromium then
// unloads the old one, evaluates the modules again and opens both
// streams again, most of a switch's time.
//
// The address follows (pushState): back and forward swap again, and a
// reload loads the page the address names, the same as a swap shows.
// Anything else (another page, a modifier key, a failed fetch) is a
// normal navigation.
//
//   <main> > .session                     the part swapped
//   .session[data-session-fragment][data-title][data-session-id]
//            [data-archived][data-events][data-events-seq]   the fragment
//   #sidebar [data-partial-url] [aria-current="page"]       marked anew

import { fragment } from './dom.js';

const body = document.body;
const fragmentHeader = 'X-Myco-Fragment';
const sessionPath = /^\/s\/([^/]+)$/;

/** sessionOf is the ID of the session a URL of this origin shows, or ''.
 * @param {URL} url */
export function sessionOf(url) {
  if (url.origin !== location.origin) return '';
  const m = sessionPath.exec(url.pathname);
  return m ? decodeURIComponent(m[1]) : '';
}

/** @type {AbortController} */
let current = new AbortController();
/** @type {((signal: AbortSignal) => void) | null} */
let started = null;
// asked counts the swaps asked for: only the latest one's answer goes in.
let asked = 0;

/**
 * initSwap starts the page's session parts (start, given the signal that
 * ends them) and lets links to other sessions swap them.
 * @param {(signal: AbortSignal) => void} start
 */
export function initSwap(start) {
  started = start;
  start(current.signal);
  document.addEventListener('click', (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
    const a = e.target instanceof Element ? e.target.closest('a[href]') : null;
    if (!(a instanceof HTMLAnchorElement) || (a.target && a.target !== '_self') || a.hasAttribute('download')) return;
    const url = new URL(a.href);
    const id = sessionOf(url);
    // A link within the page (#m-…) is the browser's to follow.
    if (!id || (id === body.dataset.sessionId && url.hash)) return;
    e.preventDefault();
    swapTo(url, start, true);
  });
  window.addEventListener('popstate', () => {
    const url = new URL(location.href);
    const id = sessionOf(url);
    if (id === body.dataset.sessionId) return; // only the #hash moved
    if (!id) location.reload();
    else swapTo(url, start, false);
  });
}

/**
 * openInPlace shows the session at href in place of the page's, as a
 * click on a link to it does (an edit's or a regeneration's version,
 * static/versions.js), and resolves once it is shown.
 * @param {string} href
 */
export async function openInPlace(href) {
  const url = new URL(href, location.href);
  if (!started || !sessionOf(url)) {
    location.assign(url.href);
    return;
  }
  await swapTo(url, started, true);
}

/**
 * swapTo shows the session url names in place of the page's, pushing the
 * address (a click) or following it (back, forward).
 * @param {URL} url @param {(signal: AbortSignal) => void} start @param {boolean} push
 */
async function swapTo(url, start, push) {
  const n = ++asked;
  const leave = () => (push ? location.assign(url.href) : location.reload());
  let next;
  try {
    const res = await fetch(url.pathname + url.search, {
      credentials: 'same-origin',
      headers: { Accept: 'text/html', [fragmentHeader]: '1' },
    });
    if (!res.ok) throw new Error(String(res.status));
    next = /** @type {HTMLElement | null} */ (fragment(await res.text()).querySelector('[data-session-fragment]'));
  } catch {
    next = null;
  }
  if (n !== asked) return; // a later click won
  const old = document.querySelector('#main > .session');
  // A page that cannot be swapped (an error, a deleted session) is loaded
  // as a page: it says why.
  if (!next || !old) {
    leave();
    return;
  }
  current.abort();
  current = new AbortController();
  if (push) history.pushState(null, '', url.href);
  document.title = next.dataset.title || 'Untitled';
  markSidebar(next.dataset.sessionId || '');
  takeBody(next);
  old.replaceWith(next);
  start(current.signal);
}

/** takeBody puts on <body> what the layout says of the session there.
 * @param {HTMLElement} next */
function takeBody(next) {
  const d = next.dataset;
  body.dataset.sessionId = d.sessionId || '';
  body.dataset.archived = d.archived || 'false';
  for (const k of /** @type {const} */ (['events', 'eventsSeq'])) {
    if (d[k] !== undefined) body.dataset[k] = d[k];
    else delete body.dataset[k];
  }
  for (const k of ['sessionFragment', 'title', 'sessionId', 'archived', 'events', 'eventsSeq']) delete d[k];
}

/** markSidebar marks the session shown in the sidebar, and in what it
 * fetches when the listing changes.
 * @param {string} id */
function markSidebar(id) {
  const nav = document.getElementById('sidebar');
  if (!nav) return;
  const url = new URL(nav.dataset.partialUrl || '/partials/sidebar', location.href);
  url.searchParams.set('current', id);
  nav.dataset.partialUrl = url.pathname + url.search;
  for (const a of nav.querySelectorAll('a[aria-current="page"]')) a.removeAttribute('aria-current');
  // .sidebar-row: <body> has a data-session-id too.
  nav.querySelector(`.sidebar-row[data-session-id="${CSS.escape(id)}"] > a.sidebar-link`)?.setAttribute('aria-current', 'page');
}
