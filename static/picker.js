// The @ picker: typing @ in the composer lists the session folder's files
// and folders, fuzzy-matched as one types (@rntm finds src/app/runtime.ts,
// GET …/paths?q=, server/filepick). ↑ ↓ move, Enter or Tab picks, Esc
// closes, a tap picks. What is picked becomes @path in the text; the
// mention is attached when the message goes (mentions.js). A word after
// @ that matches nothing stays text: the list simply does not open.
//
//   #path-picker  the listbox, made once beside the command list

import { api } from './http.js';
import { el } from './dom.js';
import { input, saveDraft } from './composer.js';

/** @type {string[]} */
let listed = [];
let active = 0;
let asked = 0; // only the latest query's answer is drawn
let dismissed = ''; // the text before the caret for which Esc closed the list
/** @type {ReturnType<typeof setTimeout> | undefined} */
let timer;

/** @returns {{at: number, query: string} | null} the @word the caret ends */
function mention() {
  const before = input.value.slice(0, input.selectionStart ?? 0);
  const m = /(?:^|\s)@([^\s@]*)$/.exec(before);
  if (!m || input.selectionStart !== input.selectionEnd) return null;
  return { at: before.length - m[1].length, query: m[1] };
}

/** @returns {HTMLElement | null} */
function pickerList() {
  let list = /** @type {HTMLElement | null} */ (document.getElementById('path-picker'));
  if (list && input.parentElement?.contains(list)) return list;
  const commands = document.getElementById('command-list');
  if (!commands) return null;
  list = el('ul', 'command-list path-picker');
  list.id = 'path-picker';
  list.setAttribute('role', 'listbox');
  list.setAttribute('aria-label', 'Files');
  list.setAttribute('data-testid', 'path-picker');
  list.hidden = true;
  // A tap or click picks; pointerdown keeps the focus (and the phone's
  // keyboard) in the composer.
  list.addEventListener('pointerdown', (e) => e.preventDefault());
  list.addEventListener('mousedown', (e) => e.preventDefault());
  list.addEventListener('click', (e) => {
    const li = e.target instanceof Element ? e.target.closest('[role="option"]') : null;
    if (!(li instanceof HTMLElement)) return;
    active = Number(li.dataset.index || 0);
    accept();
  });
  commands.after(list);
  return list;
}

/** hidePicker closes the list. */
export function hidePicker() {
  clearTimeout(timer);
  asked++;
  const list = document.getElementById('path-picker');
  if (!list || list.hidden) return;
  list.hidden = true;
  listed = [];
  input.removeAttribute('aria-activedescendant');
  input.setAttribute('aria-controls', 'command-list');
}

/** dismissPicker closes the list until more is typed, as picking a file
 * in it does. */
export function dismissPicker() {
  dismissed = input.value.slice(0, input.selectionStart ?? 0);
  hidePicker();
}

/** updatePicker opens, refreshes or closes the list for what is typed. */
export function updatePicker() {
  const m = mention();
  const before = input.value.slice(0, input.selectionStart ?? 0);
  if (before !== dismissed) dismissed = '';
  if (!m || dismissed) {
    hidePicker();
    return;
  }
  clearTimeout(timer);
  const n = ++asked;
  // A short pause merges a burst of keys into one query.
  timer = setTimeout(() => query(m.query, n), 60);
}

/** @param {string} q @param {number} n */
async function query(q, n) {
  const url = (input.closest('[data-composer]')?.getAttribute('data-messages-url') || '').replace(/\/messages$/, '');
  if (!url) return;
  /** @type {{paths?: string[]}} */
  let res;
  try {
    res = await api('GET', `${url}/paths?q=${encodeURIComponent(q)}`);
  } catch {
    return; // the picker is a help: a failed query leaves the text alone
  }
  // Only the latest query's answer, and only while the @word is still
  // the one asked about (Tab's completion may have changed it meanwhile).
  if (n !== asked || mention()?.query !== q) return;
  show(Array.isArray(res?.paths) ? res.paths : []);
}

/** @param {string[]} paths */
function show(paths) {
  const list = pickerList();
  if (!list) return;
  if (paths.length === 0) {
    hidePicker();
    return;
  }
  listed = paths;
  active = 0;
  list.replaceChildren(
    ...paths.map((p, i) => {
      const li = el('li', 'command-option path-option');
      li.id = `path-option-${i}`;
      li.setAttribute('role', 'option');
      li.setAttribute('data-testid', 'path-option');
      li.dataset.index = String(i);
      li.dataset.path = p;
      const slash = p.replace(/\/$/, '').lastIndexOf('/');
      li.append(el('code', '', p.slice(slash + 1)), el('span', '', slash >= 0 ? p.slice(0, slash) : ''));
      return li;
    }),
  );
  list.hidden = false;
  input.setAttribute('aria-controls', 'path-picker');
  markActive();
}

function markActive() {
  const list = document.getElementById('path-picker');
  if (!list) return;
  const options = list.children;
  for (let i = 0; i < options.length; i++) options[i].setAttribute('aria-selected', i === active ? 'true' : 'false');
  const opt = options[active];
  if (opt) {
    input.setAttribute('aria-activedescendant', opt.id);
    opt.scrollIntoView({ block: 'nearest' });
  }
}

/** accept puts the highlighted path in place of the @word: a file closes
 * the list until more is typed (as Tab's completion leaves it), a folder
 * keeps it open for what is in it. */
function accept() {
  const p = listed[active];
  const m = mention();
  if (!p || !m) {
    hidePicker();
    return;
  }
  const end = m.at + m.query.length;
  input.value = input.value.slice(0, m.at) + p + input.value.slice(end);
  input.selectionStart = input.selectionEnd = m.at + p.length;
  hidePicker();
  if (!p.endsWith('/')) dismissed = input.value.slice(0, input.selectionStart);
  input.dispatchEvent(new Event('input', { bubbles: true })); // autosize, draft, the list for a folder
  saveDraft();
  input.focus();
}

/** onPickerKey handles the keys of the open list; true when it took one.
 * @param {KeyboardEvent} e */
export function onPickerKey(e) {
  const list = document.getElementById('path-picker');
  if (!list || list.hidden || listed.length === 0) return false;
  switch (e.key) {
    case 'ArrowDown':
      active = (active + 1) % listed.length;
      markActive();
      return true;
    case 'ArrowUp':
      active = (active - 1 + listed.length) % listed.length;
      markActive();
      return true;
    case 'Tab':
    case 'Enter':
      if (e.shiftKey || e.altKey || e.ctrlKey || e.metaKey) return false;
      accept();
      return true;
    case 'Escape':
      dismissed = input.value.slice(0, input.selectionStart ?? 0);
      hidePicker();
      return true;
  }
  return false;
}
