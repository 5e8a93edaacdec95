// Organising sessions from a listing's rows (the home and archived pages,
// and the session page's sidebar): a "⋯" menu per row (rename in place,
// pin, tags, fork, export, archive or restore, delete), and on the home
// and archived pages a checkbox per row to archive, restore or delete
// several at once, with one Undo. Markup (web/organise.templ):
//
//   <li data-session-id data-title [data-pinned]>  a row (.row or .sidebar-row)
//     <input class="row-select">                    home and archived pages
//     <button data-row-menu aria-expanded>⋯</button>
//   <div data-testid="bulk-bar" [data-archived] hidden>  [data-bulk="…"]
//
// After a change the listing is fetched again: a "myco:rows-changed" event
// on document asks the page's listing (rows.js, sidebar.js) to refetch
// its rows; the server's order (pinned first) is the truth.

import { api } from './http.js';
import { button, el } from './dom.js';
import { offerUndo, showError } from './alerts.js';

/** @typedef {{ label: string, testid: string, run: () => unknown }} MenuItem */

const rowsChanged = 'myco:rows-changed';
const tagMax = 32;

/** rowsStale asks the page's listings to fetch their rows again. */
export function rowsStale() {
  document.dispatchEvent(new CustomEvent(rowsChanged));
}

/** onRowsStale calls refresh whenever rowsStale is called.
 * @param {() => void} refresh */
export function onRowsStale(refresh) {
  document.addEventListener(rowsChanged, refresh);
}

// A row being worked on (its menu open, its title or tags edited in place)
// holds the listing: a refresh then would replace the row under the
// person, and what they typed or chose would land on a row no longer on
// the page. The refresh waits (search.js's held) and runs when the row
// is let go.
let holds = 0;
let refreshWaiting = false;

/** rowsHeld says whether a row is being worked on. */
export function rowsHeld() {
  return holds > 0;
}

/** refreshWhenFree asks for the listing's refresh once no row is held. */
export function refreshWhenFree() {
  refreshWaiting = true;
}

function hold() {
  holds++;
}

function letGo() {
  holds = Math.max(0, holds - 1);
  if (holds === 0 && refreshWaiting) {
    refreshWaiting = false;
    rowsStale();
  }
}

const sessionURL = (id) => `/api/sessions/${encodeURIComponent(id)}`;

/** @param {Element} row */
function titleOf(row) {
  return row.getAttribute('data-title') || 'the session';
}

/** @param {Element} row */
function isArchivedRow(row) {
  return Boolean(row.querySelector('[data-testid="restore-button"]'));
}

/** initOrganise wires the row menus and, where the page has a bulk bar,
 * the selection of several rows. */
export function initOrganise() {
  document.addEventListener('click', (e) => {
    const t = e.target instanceof Element ? e.target : null;
    const opener = /** @type {HTMLElement | null} */ (t?.closest('[data-row-menu]'));
    if (opener) {
      e.preventDefault();
      toggleMenu(opener);
    }
  });
  initSelection();
}

// --- The row menu --------------------------------------------------------

/** @type {{ menu: HTMLElement, opener: HTMLElement, close: (focus: boolean) => void } | null} */
let open = null;

/** @param {HTMLElement} opener */
function toggleMenu(opener) {
  const same = open?.opener === opener;
  open?.close(false);
  if (!same) openMenu(opener);
}

/** @param {HTMLElement} opener */
function openMenu(opener) {
  const row = opener.closest('[data-session-id]');
  if (!row) return;
  const items = menuItems(row);
  const menu = el('div', 'row-menu-list');
  menu.setAttribute('role', 'menu');
  menu.setAttribute('aria-label', `Actions for ${titleOf(row)}`);
  menu.dataset.testid = 'row-menu-list';
  const buttons = items.map((item) => {
    const b = button(item.label);
    b.setAttribute('role', 'menuitem');
    b.dataset.testid = item.testid;
    b.addEventListener('click', () => {
      // The item first: one that edits in place holds the row before the
      // menu lets it go, so no refresh lands in between.
      item.run();
      close(false);
    });
    return b;
  });
  menu.append(...buttons);
  document.body.append(menu);
  place(menu, opener);
  opener.setAttribute('aria-expanded', 'true');

  const onKey = (/** @type {KeyboardEvent} */ e) => {
    const at = buttons.indexOf(/** @type {HTMLButtonElement} */ (document.activeElement));
    if (e.key === 'Escape') {
      e.preventDefault();
      close(true);
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const step = e.key === 'ArrowDown' ? 1 : -1;
      buttons[(at + step + buttons.length) % buttons.length]?.focus();
    } else if (e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      buttons[e.key === 'Home' ? 0 : buttons.length - 1]?.focus();
    } else if (e.key === 'Tab') {
      close(false);
    }
  };
  const onOutside = (/** @type {Event} */ e) => {
    const t = e.target instanceof Node ? e.target : null;
    if (t && !menu.contains(t) && !opener.contains(t)) close(false);
  };
  const onMove = () => close(false);
  // A fixed menu would stay put while its row scrolls away: it closes.
  const onScroll = (/** @type {Event} */ e) => {
    if (!(e.target instanceof Node && menu.contains(e.target))) close(false);
  };
  function close(focus) {
    if (open?.menu !== menu) return;
    open = null;
    menu.remove();
    letGo();
    opener.setAttribute('aria-expanded', 'false');
    menu.removeEventListener('keydown', onKey);
    document.removeEventListener('pointerdown', onOutside, true);
    window.removeEventListener('resize', onMove);
    document.removeEventListener('scroll', onScroll, true);
    if (focus && opener.isConnected) opener.focus();
  }
  menu.addEventListener('keydown', onKey);
  document.addEventListener('pointerdown', onOutside, true);
  window.addEventListener('resize', onMove);
  document.addEventListener('scroll', onScroll, true);
  open = { menu, opener, close };
  hold();
  buttons[0]?.focus();
}

// place puts the menu under its button, inside the window (above it when
// there is no room below: the last row of a phone's screen).
function place(menu, opener) {
  const r = opener.getBoundingClientRect();
  const m = menu.getBoundingClientRect();
  const left = Math.max(4, Math.min(r.right - m.width, innerWidth - m.width - 4));
  let top = r.bottom + 4;
  if (top + m.height > innerHeight - 4) top = Math.max(4, r.top - m.height - 4);
  menu.style.left = `${left}px`;
  menu.style.top = `${top}px`;
}

/** @param {Element} row @returns {MenuItem[]} */
function menuItems(row) {
  const id = row.getAttribute('data-session-id') || '';
  const pinned = row.hasAttribute('data-pinned');
  const items = [];
  if (isArchivedRow(row)) {
    items.push({ label: 'Restore', testid: 'menu-restore', run: () => row.querySelector('[data-testid="restore-button"]')?.dispatchEvent(new MouseEvent('click', { bubbles: true })) });
    items.push({ label: 'Export as Markdown', testid: 'menu-export', run: () => download(id) });
    items.push({ label: 'Delete for good…', testid: 'menu-delete', run: () => row.querySelector('[data-testid="delete-button"]')?.dispatchEvent(new MouseEvent('click', { bubbles: true })) });
    return items;
  }
  items.push({ label: 'Rename', testid: 'menu-rename', run: () => rename(row) });
  items.push({ label: pinned ? 'Unpin' : 'Pin to the top', testid: pinned ? 'menu-unpin' : 'menu-pin', run: () => pin(row, !pinned) });
  items.push({ label: 'Tags…', testid: 'menu-tags', run: () => editTags(row) });
  items.push({ label: 'Fork', testid: 'menu-fork', run: () => fork(id) });
  items.push({ label: 'Export as Markdown', testid: 'menu-export', run: () => download(id) });
  items.push({ label: 'Archive', testid: 'menu-archive', run: () => archiveOne(row) });
  return items;
}

/** @param {Element} row @param {boolean} on */
async function pin(row, on) {
  const id = row.getAttribute('data-session-id') || '';
  try {
    await api('PATCH', sessionURL(id), { pinned: on });
  } catch (err) {
    showError(`Could not ${on ? 'pin' : 'unpin'} “${titleOf(row)}”: ${err.message}`);
    return;
  }
  rowsStale();
}

async function fork(id) {
  try {
    const s = await api('POST', `${sessionURL(id)}/fork`, {});
    if (s?.url) location.assign(s.url);
  } catch (err) {
    showError(`Could not fork the session: ${err.message}`);
  }
}

function download(id) {
  const a = el('a');
  a.href = `${sessionURL(id)}/export?format=md`;
  a.download = '';
  document.body.append(a);
  a.click();
  a.remove();
}

/** @param {Element} row */
async function archiveOne(row) {
  const id = row.getAttribute('data-session-id') || '';
  await bulk([id], 'archive', titleOf(row));
}

// --- Editing in place: the title, the tags --------------------------------

/**
 * inPlace shows an input over the row's title; Enter saves it with save
 * (which throws to keep the input, saying why), Escape leaves it as it
 * was, and leaving the field saves a change.
 * @param {Element} row
 * @param {{ value: string, label: string, testid: string, placeholder?: string, maxLength?: number, save: (v: string) => Promise<void> }} o
 */
function inPlace(row, o) {
  const host = /** @type {HTMLElement | null} */ (row.querySelector('a.title, a.sidebar-link'));
  if (!host || row.querySelector('.in-place')) return;
  const input = /** @type {HTMLInputElement} */ (el('input', 'in-place'));
  input.type = 'text';
  input.value = o.value;
  input.setAttribute('aria-label', o.label);
  input.dataset.testid = o.testid;
  input.spellcheck = false;
  if (o.placeholder) input.placeholder = o.placeholder;
  if (o.maxLength) input.maxLength = o.maxLength;
  host.hidden = true;
  host.after(input);
  hold();
  input.focus();
  input.select();
  let busy = false;
  const end = () => {
    input.remove();
    host.hidden = false;
    host.focus();
    letGo();
  };
  const commit = async () => {
    if (busy) return;
    if (input.value === o.value) {
      end();
      return;
    }
    busy = true;
    input.setAttribute('aria-busy', 'true');
    try {
      await o.save(input.value);
      end();
      rowsStale();
    } catch (err) {
      showError(err.message);
      input.removeAttribute('aria-busy');
      busy = false;
      if (input.isConnected) input.focus(); // what was typed stays
    }
  };
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      commit();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      busy = true;
      end();
    }
  });
  input.addEventListener('blur', () => {
    if (!busy && input.isConnected) commit();
  });
  // A click on the input must not follow the row's link or select it.
  input.addEventListener('click', (e) => e.stopPropagation());
}

/** @param {Element} row */
function rename(row) {
  const id = row.getAttribute('data-session-id') || '';
  inPlace(row, {
    value: row.getAttribute('data-title') || '',
    label: 'New title',
    testid: 'rename-input',
    maxLength: 120,
    save: async (v) => {
      try {
        await api('PATCH', sessionURL(id), { title: v });
      } catch (err) {
        throw new Error(`Could not rename the session: ${err.message}`);
      }
    },
  });
}

/** @param {Element} row */
function editTags(row) {
  const id = row.getAttribute('data-session-id') || '';
  const current = [...row.querySelectorAll('[data-testid="tag-chip"]')].map((t) => t.textContent?.trim() || '');
  inPlace(row, {
    value: current.join(', '),
    label: `Tags, separated by commas (each up to ${tagMax} characters)`,
    testid: 'tags-input',
    placeholder: 'tags, separated by commas',
    save: async (v) => {
      const tags = v.split(',').map((t) => t.trim()).filter(Boolean);
      try {
        await api('PATCH', sessionURL(id), { tags });
      } catch (err) {
        throw new Error(`Could not tag the session: ${err.message}`);
      }
    },
  });
}

// --- Several rows at once -------------------------------------------------

/**
 * bulk archives, restores or deletes the sessions ids, and offers one
 * Undo for an archive or a restore (a delete cannot be undone, so it was
 * confirmed first). What failed is said, by how many and why.
 * @param {string[]} ids @param {'archive' | 'restore' | 'delete'} verb @param {string} [title]
 * @returns {Promise<string[]>} the IDs done
 */
async function bulk(ids, verb, title) {
  const results = await Promise.allSettled(ids.map((id) => api(verb === 'delete' ? 'DELETE' : 'POST', verb === 'delete' ? sessionURL(id) : `${sessionURL(id)}/${verb}`)));
  const done = ids.filter((_, i) => results[i].status === 'fulfilled');
  const failed = results.filter((r) => r.status === 'rejected');
  for (const id of done) {
    for (const row of document.querySelectorAll(`[data-session-id="${CSS.escape(id)}"]`)) {
      if (row.matches('.row')) row.remove();
    }
  }
  rowsStale();
  if (failed.length > 0) {
    const why = /** @type {PromiseRejectedResult} */ (failed[0]).reason?.message || 'unknown error';
    showError(`Could not ${verb} ${failed.length} of ${ids.length}: ${why}`);
  }
  if (done.length === 0 || verb === 'delete') return done;
  const what = done.length === 1 && title ? `“${title}”` : `${done.length} sessions`;
  const back = verb === 'archive' ? 'restore' : 'archive';
  offerUndo(`${what} ${verb === 'archive' ? 'archived' : 'restored'}`, async () => {
    const again = await Promise.allSettled(done.map((id) => api('POST', `${sessionURL(id)}/${back}`)));
    rowsStale();
    const bad = again.filter((r) => r.status === 'rejected');
    if (bad.length > 0) throw new Error(`${bad.length} of ${done.length} could not be put back: ${/** @type {PromiseRejectedResult} */ (bad[0]).reason?.message}`);
  });
  return done;
}

function initSelection() {
  const bar = /** @type {HTMLElement | null} */ (document.querySelector('[data-testid="bulk-bar"]'));
  const list = document.getElementById('session-list');
  if (!bar || !list) return;
  /** @type {Set<string>} */
  const selected = new Set();
  let anchor = '';
  const count = bar.querySelector('[data-testid="bulk-count"]');
  const confirmBox = /** @type {HTMLElement | null} */ (bar.querySelector('[data-bulk-confirm]'));
  const rows = () => /** @type {HTMLElement[]} */ ([...list.querySelectorAll('.row[data-session-id]')]);
  const idOf = (/** @type {Element} */ row) => row.getAttribute('data-session-id') || '';

  const show = () => {
    for (const row of rows()) {
      const on = selected.has(idOf(row));
      const box = /** @type {HTMLInputElement | null} */ (row.querySelector('.row-select'));
      if (box) box.checked = on;
      row.toggleAttribute('data-selected', on);
    }
    bar.hidden = selected.size === 0;
    if (count) count.textContent = `${selected.size} selected`;
    if (confirmBox && selected.size === 0) confirmBox.hidden = true;
  };
  // set selects or clears row, or with range every row from the last one
  // chosen to it, as a file manager does with Shift.
  const set = (/** @type {HTMLElement} */ row, /** @type {boolean} */ on, /** @type {boolean} */ range) => {
    const all = rows();
    const from = all.findIndex((r) => idOf(r) === anchor);
    const to = all.indexOf(row);
    if (range && from >= 0 && to >= 0) {
      for (const r of all.slice(Math.min(from, to), Math.max(from, to) + 1)) selected.add(idOf(r));
    } else if (on) selected.add(idOf(row));
    else selected.delete(idOf(row));
    anchor = idOf(row);
    show();
  };

  list.addEventListener('click', (e) => {
    const t = e.target instanceof Element ? e.target : null;
    const row = /** @type {HTMLElement | null} */ (t?.closest('.row[data-session-id]'));
    if (!row || !t) return;
    if (t.matches('.row-select')) {
      set(row, /** @type {HTMLInputElement} */ (t).checked, e.shiftKey);
      return;
    }
    // Shift- or Ctrl-click on a row outside its links and buttons selects
    // it (with Shift, the rows up to it); on the title it opens a tab, as
    // a link does.
    if (!(e.shiftKey || e.ctrlKey || e.metaKey) || t.closest('a, button, input')) return;
    e.preventDefault();
    set(row, e.shiftKey || !selected.has(idOf(row)), e.shiftKey);
  });
  // Rows fetched again (a search, a change elsewhere) keep their marks;
  // a row that left the list leaves the selection.
  new MutationObserver(() => {
    const here = new Set(rows().map(idOf));
    for (const id of selected) if (!here.has(id)) selected.delete(id);
    show();
  }).observe(list, { childList: true });

  bar.addEventListener('click', async (e) => {
    const b = e.target instanceof Element ? /** @type {HTMLButtonElement | null} */ (e.target.closest('[data-bulk]')) : null;
    if (!b) return;
    const what = b.dataset.bulk;
    const ids = [...selected];
    if (what === 'clear') {
      selected.clear();
      show();
      return;
    }
    if (what === 'delete-ask' && confirmBox) {
      const q = confirmBox.querySelector('[data-testid="bulk-question"]');
      if (q) q.textContent = `Delete ${ids.length === 1 ? 'this session' : `these ${ids.length} sessions`} for good? This cannot be undone.`;
      confirmBox.hidden = false;
      /** @type {HTMLElement | null} */ (confirmBox.querySelector('[data-bulk="delete-cancel"]'))?.focus();
      return;
    }
    if (what === 'delete-cancel' && confirmBox) {
      confirmBox.hidden = true;
      return;
    }
    if (what !== 'archive' && what !== 'restore' && what !== 'delete') return;
    b.disabled = true;
    try {
      const done = await bulk(ids, what);
      for (const id of done) selected.delete(id);
    } finally {
      b.disabled = false;
      if (confirmBox) confirmBox.hidden = true;
      show();
    }
  });
}
