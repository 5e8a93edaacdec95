// A listing of sessions (the home and archived pages): search over its
// rows, "Load more", archive, restore and delete, and moving through the
// rows with the keyboard. Archive, restore and delete also act from an
// archived session's banner (page-session.js).
//
//   [data-action="load-more|archive|restore"][data-url]
//   [data-delete-control] [data-action="delete-ask|delete|delete-cancel"]

import { api, fetchFragment } from './http.js';
import { el, isAbort, isTyping } from './dom.js';
import { offerUndo, showError } from './alerts.js';
import { followListing } from './listing.js';
import { refreshBoard } from './board.js';
import { Search } from './search.js';
import { setBusy } from './actions.js';
import { onRowsStale, refreshWhenFree, rowsHeld } from './organise.js';

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

export function initSearch() {
  const input = searchInput();
  const list = sessionList();
  if (!input || !list) return;
  listing = new Search({
    input, list, hits: document.getElementById('text-hits'), rowsURL,
    onError: showError, onRows: rememberQuery, held: rowsHeld, onHeld: refreshWhenFree,
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
    refreshBoard();
  });
  // A row's menu or the bulk bar changed sessions (organise.js): the
  // server's order (pinned first) and marks are fetched at once.
  onRowsStale(() => listing.refresh(rowsURL(listing.query, pagesLoaded)));
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
  // Where the row is, taken before the request: the listing may be
  // refreshed (the profile stream tells of the archive) before its answer
  // is read, replacing the row, and Undo must still be offered.
  const row = el.closest('[data-testid="session-row"]');
  const place = { list: row?.parentElement, next: row?.nextElementSibling };
  const title = row?.querySelector('[data-testid="session-link"]')?.textContent?.trim() || 'the session';
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
  if (row?.isConnected) removeRow(row);
  if (verb === 'archive' && row && place.list) {
    setBusy(el, false);
    offerUndo(`Archived “${title}”`, async () => {
      await api('POST', el.dataset.url.replace(/\/archive$/, '/restore'));
      const list = place.list;
      const id = row.getAttribute('data-session-id') || '';
      // A refresh may have brought the row back already.
      if (!list?.isConnected || list.querySelector(`[data-session-id="${CSS.escape(id)}"]`)) return;
      list.querySelector(':scope > .empty')?.remove();
      list.insertBefore(row, place.next?.parentElement === list ? place.next : null);
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

// onKey: "/" searches, j and k move through the rows.
export function onKey(e) {
  if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return;
  if (e.key === '/') {
    const input = searchInput();
    if (!input) return;
    e.preventDefault();
    input.focus();
    input.select();
  } else if ((e.key === 'j' || e.key === 'k')) {
    e.preventDefault();
    moveRow(e.key === 'j' ? 1 : -1);
  }
}


// rowActions are the listing's click actions, by data-action.
export const rowActions = {
  'load-more': loadMore,
  archive: (el) => archiveOrRestore(el, 'archive'),
  restore: (el) => archiveOrRestore(el, 'restore'),
  'delete-ask': askDelete,
  'delete-cancel': cancelDelete,
  delete: deleteSession,
};
