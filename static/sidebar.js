// The session page's sidebar of sessions, and the profile's stream that
// keeps every listing live. Markup it acts on (web/sidebar.templ,
// web/layout.templ):
//
//   <button data-testid="sidebar-toggle" aria-controls="sidebar">  in the header
//   <nav id="sidebar" data-partial-url>  search input, [data-testid="sidebar-group"]
//     <ul id="sidebar-list">  rows rendered by the server, refetched on change
//     <section data-testid="sidebar-hits">  text hits of the search
//   <div class="sidebar-backdrop">  behind the drawer on a narrow screen
//
// On a wide screen the sidebar sits beside the page and can be hidden
// (remembered in localStorage); on a narrow one it is a drawer over the
// conversation, closed by Escape, the backdrop or choosing a session.
// Rows are plain links: Ctrl-click and middle-click open a new tab.

import { followListing } from './listing.js';
import { Search } from './search.js';
import { onRowsStale, refreshWhenFree, rowsHeld } from './organise.js';

const body = document.body;
const stored = { closed: 'myco.sidebar.closed', grouped: 'myco.sidebar.grouped' };
const narrow = matchMedia('(max-width: 60rem)');

function read(key) {
  try {
    return localStorage.getItem(key) === '1';
  } catch {
    return false; // storage refused: the choice is not kept
  }
}

function write(key, on) {
  try {
    if (on) localStorage.setItem(key, '1');
    else localStorage.removeItem(key);
  } catch {
    // storage refused: the choice holds for this page only
  }
}

export function initSidebar(onError) {
  const nav = document.getElementById('sidebar');
  const toggle = /** @type {HTMLElement | null} */ (document.querySelector('[data-testid="sidebar-toggle"]'));
  if (!nav) return;
  const list = nav.querySelector('#sidebar-list');
  const groupButton = nav.querySelector('[data-testid="sidebar-group"]');
  const backdrop = /** @type {HTMLElement | null} */ (document.querySelector('.sidebar-backdrop'));
  let grouped = read(stored.grouped);

  const rowsURL = (q) => {
    const url = new URL(nav.dataset.partialUrl, location.href);
    if (q) url.searchParams.set('q', q);
    if (grouped) url.searchParams.set('group', '1');
    return url;
  };
  const search = new Search({
    input: nav.querySelector('[data-testid="sidebar-search"]'),
    list,
    hits: nav.querySelector('[data-testid="sidebar-hits"]'),
    rowsURL,
    onError,
    held: rowsHeld,
    onHeld: refreshWhenFree,
  }).bind();

  // --- Shown or hidden: a column on a wide screen, a drawer on a narrow one.
  const drawerOpen = () => body.dataset.drawer === 'open';
  const sync = () => {
    const shown = narrow.matches ? drawerOpen() : body.dataset.sidebar !== 'closed';
    toggle?.setAttribute('aria-expanded', String(shown));
    if (backdrop) backdrop.hidden = !(narrow.matches && drawerOpen());
  };
  const setDrawer = (open) => {
    if (open) body.dataset.drawer = 'open';
    else delete body.dataset.drawer;
    sync();
    if (open) (/** @type {HTMLElement | null} */ (nav.querySelector('[aria-current="page"]')) || nav.querySelector('input'))?.focus();
  };
  if (read(stored.closed)) body.dataset.sidebar = 'closed';
  sync();
  narrow.addEventListener('change', () => setDrawer(false));
  toggle?.addEventListener('click', () => {
    if (narrow.matches) {
      setDrawer(!drawerOpen());
      return;
    }
    const closed = body.dataset.sidebar !== 'closed';
    if (closed) body.dataset.sidebar = 'closed';
    else delete body.dataset.sidebar;
    write(stored.closed, closed);
    sync();
  });
  backdrop?.addEventListener('click', () => setDrawer(false));
  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape' || !narrow.matches || !drawerOpen()) return;
    e.preventDefault();
    setDrawer(false);
    toggle?.focus();
  });
  nav.addEventListener('click', (e) => {
    // Choosing a session closes the drawer; a new tab leaves it open.
    const link = e.target instanceof Element ? e.target.closest('a[href]') : null;
    if (link && e.button === 0 && !e.ctrlKey && !e.metaKey && !e.shiftKey) setDrawer(false);
  });

  // --- Grouped by folder or not: remembered, and fetched as chosen.
  const showGrouping = () => groupButton?.setAttribute('aria-pressed', String(grouped));
  groupButton?.addEventListener('click', () => {
    grouped = !grouped;
    write(stored.grouped, grouped);
    showGrouping();
    search.refresh();
  });
  showGrouping();
  // The page renders the sidebar ungrouped, and a page rendered without
  // its rows (none to show) fills them in.
  if (grouped || list.querySelector('[data-testid="sidebar-empty"]')) search.refresh();

  // Rows asked for before another session was swapped in (swap.js) mark
  // the one shown then: the session the page shows now is marked.
  new MutationObserver(() => {
    const id = body.dataset.sessionId || '';
    for (const a of list.querySelectorAll('a[aria-current="page"]')) {
      if (a.closest('.sidebar-row')?.getAttribute('data-session-id') !== id) a.removeAttribute('aria-current');
    }
    list.querySelector(`.sidebar-row[data-session-id="${CSS.escape(id)}"] > a.sidebar-link`)?.setAttribute('aria-current', 'page');
  }).observe(list, { childList: true });

  nav.querySelector('[aria-current="page"]')?.scrollIntoView({ block: 'nearest' });
  followListing(() => {
    if (!search.busy) search.refresh();
  });
  onRowsStale(() => search.refresh()); // a row's menu changed a session (organise.js)
}
