// myco's tab script. No dependencies and no inline handlers (the CSP allows
// only this file): everything it acts on is marked by the server's templates
// with data-* attributes.
//
//   <body data-page="home|archived|session|error" data-session-id
//         data-archived="true|false" data-events="/api/sessions/{id}/events">
//   [data-action="load-more|archive|restore|load-earlier"][data-url]
//   [data-delete-control] [data-action="delete-ask|delete|delete-cancel"]
//   [data-action="fork-message"] (lineage.js)
//   details[data-action="open-thread"][data-url] > [data-messages]
//
// HTML fragments come from the server, already sanitized, and are parsed
// through a <template>; text that arrives as JSON only ever goes in through
// textContent. The chat of a session page (composer, live turn) starts in
// chat.js, which names the modules it is made of; the new-session dialog
// is in newsession.js.
//
// The modules are layers, and none imports one above it (a cycle is a
// lint failure: static/imports_test.go). At the bottom, leaves that know
// no other module of the tab: dom.js (elements, fragments), http.js,
// events.js, alerts.js (errors, Undo), stream.js (the event stream, the
// title), scroll.js, thread.js (the conversation's elements), composer.js
// (the composer's state). Above them the parts of the page; then send.js
// and commands.js, which act on the composer; chat.js, which wires the
// chat; and this entry on top, which nothing imports.

import { initChat } from './chat.js';
import { api, fetchFragment } from './http.js';
import { el, isAbort, isTyping } from './dom.js';
import { offerUndo, showError } from './alerts.js';
import { openStream } from './stream.js';
import { initCompaction } from './compaction.js';
import { initNewSession, openNewSession } from './newsession.js';
import { Search } from './search.js';
import { initSidebar } from './sidebar.js';
import { initPanelDrawer } from './paneldrawer.js';
import { followListing } from './listing.js';
import { forkMessage } from './lineage.js';
import { initSettings } from './settings.js';
import { initHighlight } from './highlight.js';
import { initMessageKeys } from './messagekeys.js';
import { initCopy } from './copy.js';

const body = document.body;

function setBusy(el, busy) {
  if (busy) el.setAttribute('aria-busy', 'true');
  else el.removeAttribute('aria-busy');
  if (el instanceof HTMLButtonElement) el.disabled = busy;
}

// --- Times ------------------------------------------------------------------
// The server writes times in the reader's zone once it knows it (a cookie
// this sets), else in UTC; the reader wants theirs, and "3 hours ago" must
// stay true while the tab stays open.

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
/** @type {Array<[Intl.RelativeTimeFormatUnit, number, number]>} */
const units = [
  ['minute', 60, 60],
  ['hour', 3600, 24],
  ['day', 86400, 30],
];

function relativeText(date) {
  const seconds = (date.getTime() - Date.now()) / 1000;
  if (Math.abs(seconds) < 60) return relative.format(0, 'second');
  for (const [unit, size, limit] of units) {
    const n = Math.round(seconds / size);
    if (Math.abs(n) < limit) return relative.format(n, unit);
  }
  return dateTime.format(date);
}

const shortDate = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });

// shortText is relativeText for a narrow column (the sidebar): "5m",
// "3h", "2d", then the date, as the server writes it first.
function shortText(date) {
  const seconds = (Date.now() - date.getTime()) / 1000;
  if (seconds < 60) return 'now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)}h`;
  if (seconds < 30 * 86400) return `${Math.floor(seconds / 86400)}d`;
  return shortDate.format(date);
}

// localText is a time as the server writes it in the reader's zone
// (web/format.go localFormat): the same text, so a page rendered for this
// zone keeps its times as they are and nothing after them moves.
function localText(date) {
  const p = (n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())} ${p(date.getHours())}:${p(date.getMinutes())}`;
}

function localizeTime(el) {
  const date = new Date(el.dateTime);
  if (Number.isNaN(date.getTime())) return;
  el.title = dateTime.format(date);
  const rel = el.dataset.relative;
  const text = rel === 'short' ? shortText(date) : rel !== undefined ? relativeText(date) : localText(date);
  if (el.textContent !== text) el.textContent = text;
  el.dataset.localized = '';
}

// rememberZone tells the server the reader's zone (server/zone.go), for
// the pages it renders from now on.
function rememberZone() {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (/^[A-Za-z0-9_+\/-]{1,64}$/.test(zone)) document.cookie = `zone=${zone}; path=/; max-age=31536000; samesite=strict`;
}

function localizeTimes(root) {
  if (root instanceof Element && root.matches('time[datetime]:not([data-localized])')) localizeTime(root);
  for (const el of root.querySelectorAll('time[datetime]:not([data-localized])')) localizeTime(el);
}

function initTimes() {
  rememberZone();
  localizeTimes(document);
  // Whatever is added later (fragments, messages from the stream) is
  // localized as it arrives.
  new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.addedNodes) if (n instanceof Element) localizeTimes(n);
    }
  }).observe(body, { childList: true, subtree: true });
  setInterval(() => {
    for (const el of document.querySelectorAll('time[data-relative]')) localizeTime(el);
  }, 60_000);
}

// --- Listing: search, load more, archive, restore ---------------------------

const searchInput = () => /** @type {HTMLInputElement | null} */ (document.querySelector('[data-testid="search-input"]'));
const sessionList = () => document.getElementById('session-list');

// listing is the home or archived page's search over its rows (search.js);
// null on other pages.
let listing = null;

// pagesLoaded counts the pages of rows the list holds: a search shows the
// first, each "Load more" adds one.
let pagesLoaded = 1;

// rememberQuery keeps the filter in the address, so reloading or going back
// shows the same rows.
function rememberQuery(q) {
  pagesLoaded = 1;
  const page = new URL(location.href);
  if (q) page.searchParams.set('q', q);
  else page.searchParams.delete('q');
  page.searchParams.delete('page');
  history.replaceState(history.state, '', page);
}

function rowsURL(q, pages = 1) {
  const url = new URL(searchInput().dataset.partialUrl, location.href);
  if (q) url.searchParams.set('q', q);
  if (pages > 1) url.searchParams.set('pages', String(pages));
  return url;
}

function initSearch() {
  const input = searchInput();
  const list = sessionList();
  if (!input || !list) return;
  listing = new Search({
    input, list, hits: document.getElementById('text-hits'), rowsURL,
    onError: showError, onRows: rememberQuery,
  }).bind();
  input.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      moveRow(1);
    }
  });
  // The rows follow the listing as it changes: a new session appears, a
  // renamed one shows its title, an archived one leaves (and the archived
  // page gains it). With a query, the rows matching it are fetched again
  // (the text hits below stay: they cost a read of every document). After
  // "Load more", every page loaded so far is fetched again in one
  // fragment, so the rows the person scrolled to stay. A search or "Load
  // more" in flight wins: its rows are newer.
  followListing(() => {
    if (!listing.busy) listing.refresh(rowsURL(listing.query, pagesLoaded));
  });
}

async function loadMore(el) {
  const item = el.closest('[data-more]');
  if (!listing || !item || listing.busy) return;
  const ctl = listing.start();
  setBusy(el, true);
  try {
    item.replaceWith(await fetchFragment(el.dataset.url, ctl.signal));
    pagesLoaded++;
  } catch (err) {
    setBusy(el, false);
    if (!isAbort(err)) showError(`Could not load more sessions: ${err.message}`);
  } finally {
    listing.end(ctl);
  }
}

async function archiveOrRestore(el, verb) {
  setBusy(el, true);
  try {
    await api('POST', el.dataset.url);
  } catch (err) {
    setBusy(el, false);
    showError(`Could not ${verb} the session: ${err.message}`);
    return;
  }
  if ('reload' in el.dataset) {
    location.reload();
    return;
  }
  const row = el.closest('[data-testid="session-row"]');
  const place = { list: row?.parentElement, next: row?.nextElementSibling };
  removeRow(row);
  if (verb === 'archive' && row && place.list) {
    setBusy(el, false);
    const title = row.querySelector('[data-testid="session-link"]')?.textContent?.trim() || 'the session';
    offerUndo(`Archived “${title}”`, async () => {
      await api('POST', el.dataset.url.replace(/\/archive$/, '/restore'));
      place.list.querySelector(':scope > .empty')?.remove();
      place.list.insertBefore(row, place.next?.isConnected ? place.next : null);
      row.querySelector('a')?.focus();
    });
  }
}

// Delete, in two steps (web/home.templ deleteControl): Delete shows
// "Delete for good?" with Confirm and Cancel in its place; Confirm sends
// DELETE. A row then leaves its list; the archived session's page goes
// where data-then says. A refusal (a session another process has open is
// a 409 with its pid) says the server's words, and the question stays.

function deleteParts(el) {
  const control = el.closest('[data-delete-control]');
  return {
    ask: control?.querySelector('[data-action="delete-ask"]'),
    confirm: control?.querySelector('[data-delete-confirm]'),
  };
}

function askDelete(el) {
  const { ask, confirm } = deleteParts(el);
  if (!ask || !confirm) return;
  ask.hidden = true;
  confirm.hidden = false;
  // Cancel takes the focus: a second Enter must not delete.
  confirm.querySelector('[data-action="delete-cancel"]')?.focus();
}

function cancelDelete(el) {
  const { ask, confirm } = deleteParts(el);
  if (!ask || !confirm) return;
  confirm.hidden = true;
  ask.hidden = false;
  ask.focus();
}

async function deleteSession(el) {
  setBusy(el, true);
  try {
    await api('DELETE', el.dataset.url);
  } catch (err) {
    setBusy(el, false);
    showError(`Could not delete the session: ${err.message}`, err.data?.url);
    return;
  }
  if (el.dataset.then) {
    location.assign(el.dataset.then);
    return;
  }
  removeRow(el.closest('[data-testid="session-row"]'));
}

// removeRow takes a row out of the list, keeping keyboard focus in the list.
function removeRow(row) {
  if (!row) return;
  const list = row.parentElement;
  const next = row.nextElementSibling || row.previousElementSibling;
  const hadFocus = row.contains(document.activeElement);
  row.remove();
  if (hadFocus) next?.querySelector('a, button')?.focus();
  if (list && !list.querySelector('.row, [data-more]')) {
    list.append(el('li', 'empty', 'No sessions left here.'));
  }
}

// --- Session page: earlier messages and threads -----------------------------

async function loadEarlier(el) {
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

function initThreads() {
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

// --- Keyboard ---------------------------------------------------------------

// moveRow moves focus to the next (1) or previous (-1) session in the list.
function moveRow(step) {
  const links = [.../** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-testid="session-link"]'))];
  if (links.length === 0) return;
  const row = document.activeElement?.closest('[data-testid="session-row"]');
  const at = row ? links.findIndex((l) => row.contains(l)) : -1;
  const next = at < 0 ? 0 : Math.min(links.length - 1, Math.max(0, at + step));
  links[next].focus();
  links[next].scrollIntoView({ block: 'nearest' });
}

function onKey(e) {
  if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return;
  const listing = body.dataset.page === 'home' || body.dataset.page === 'archived';
  if (e.key === '/') {
    const input = searchInput();
    if (!input) return;
    e.preventDefault();
    input.focus();
    input.select();
  } else if (listing && (e.key === 'j' || e.key === 'k')) {
    e.preventDefault();
    moveRow(e.key === 'j' ? 1 : -1);
  }
}

// --- Wiring -----------------------------------------------------------------

const clickActions = {
  'load-more': loadMore,
  archive: (el) => archiveOrRestore(el, 'archive'),
  restore: (el) => archiveOrRestore(el, 'restore'),
  'load-earlier': loadEarlier,
  'new-session': openNewSession,
  'fork-message': (el) => forkMessage(el, showError),
  'delete-ask': askDelete,
  'delete-cancel': cancelDelete,
  delete: deleteSession,
};

function onClick(e) {
  if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey) return; // let "open in new tab" work
  const el = e.target.closest('[data-action]');
  const action = el && clickActions[el.dataset.action];
  if (!action || el.getAttribute('aria-busy') === 'true') return;
  e.preventDefault();
  action(el);
}

document.addEventListener('click', onClick);
document.addEventListener('keydown', onKey);
initTimes();
initNewSession();
initSearch();
initSidebar(showError);
initPanelDrawer();
initThreads();
initMessageKeys();
openStream();
initChat();
initCompaction();
initSettings();
initHighlight();
initCopy();
