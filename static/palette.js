// The command palette (Ctrl-K, Cmd-K on a Mac): every command with its
// help, from the list the server renders (web/palette.templ), fuzzy-matched
// as the person types ("thk" finds /think). Arrows choose, Enter runs a
// command that needs no argument, or puts it in the composer with the
// caret after it; Esc closes (the <dialog> does that itself).
//
//   [data-palette] [data-palette-input] [data-palette-item][data-command][data-args]
//   [data-palette] [data-palette-empty]

import { input, saveDraft, stashDraft } from './composer.js';

/** @type {HTMLDialogElement | null} */
let dialog = null;
/** @type {HTMLInputElement | null} */
let field = null;
/** @type {HTMLElement[]} */
let shown = []; // the items listed now, best first
let active = 0;
/** @type {((cmd: {name: string, arg: string}, opts: {fromPalette: boolean}) => unknown) | null} */
let run = null; // commands.js's runCommand, given at init (no import cycle)

// score rates how well query matches name as a subsequence: null when it
// does not; otherwise higher for letters in runs and at the start of a
// word, and for a shorter name.
export function score(query, name) {
  const q = query.toLowerCase();
  const n = name.toLowerCase();
  if (!q) return 0;
  let s = 0;
  let at = -1;
  for (const ch of q) {
    const i = n.indexOf(ch, at + 1);
    if (i < 0) return null;
    if (i === at + 1) s += 3; // contiguous with the letter before
    if (i === 0 || /[\s/_-]/.test(n[i - 1])) s += 5; // start of a word
    at = i;
  }
  return s - n.length / 100;
}

function items() {
  return /** @type {HTMLElement[]} */ ([...(dialog?.querySelectorAll('[data-palette-item]') || [])]);
}

// filter lists the commands that match what is typed, best first (in the
// server's order when nothing is typed).
function filter() {
  if (!dialog || !field) return;
  const q = field.value.trim().replace(/^\//, '');
  const ranked = [];
  for (const [i, item] of items().entries()) {
    const s = score(q, item.dataset.command || '');
    item.hidden = s === null;
    if (s !== null) ranked.push({ item, s, i });
  }
  ranked.sort((a, b) => b.s - a.s || a.i - b.i);
  const list = dialog.querySelector('.palette-list');
  for (const { item } of ranked) list?.append(item);
  shown = ranked.map((r) => r.item);
  const empty = /** @type {HTMLElement | null} */ (dialog.querySelector('[data-palette-empty]'));
  if (empty) empty.hidden = shown.length > 0;
  active = 0;
  mark();
}

function mark() {
  for (const [i, item] of shown.entries()) item.setAttribute('aria-selected', i === active ? 'true' : 'false');
  const cur = shown[active];
  if (cur) {
    field?.setAttribute('aria-activedescendant', cur.id);
    cur.scrollIntoView({ block: 'nearest' });
  } else field?.removeAttribute('aria-activedescendant');
}

export function openPalette() {
  if (!dialog || !field || dialog.open) return;
  field.value = '';
  filter();
  dialog.showModal();
  field.focus();
}

// choose runs item's command, or puts it in the composer when it needs
// an argument ("/title " with the caret after it). Either way the draft
// stays: a command that runs at once never touches the composer, and one
// that needs an argument sets the draft aside until it has run.
function choose(item) {
  if (!item || !dialog) return;
  const name = item.dataset.command || '';
  const args = item.dataset.args || '';
  dialog.close();
  // A custom command's hint ("[file]") is the peers' and may be needed.
  if (args && (!args.startsWith('[') || item.dataset.custom !== undefined)) {
    if (input.value.trim() !== '') stashDraft(input.value);
    input.value = `/${name} `;
    saveDraft();
    input.focus();
    input.setSelectionRange(input.value.length, input.value.length);
    return;
  }
  input.focus();
  run?.({ name, arg: '' }, { fromPalette: true });
}

function onKey(e) {
  switch (e.key) {
    case 'ArrowDown':
    case 'ArrowUp':
      e.preventDefault();
      if (!shown.length) return;
      active = (active + (e.key === 'ArrowDown' ? 1 : shown.length - 1)) % shown.length;
      mark();
      return;
    case 'Enter':
      e.preventDefault();
      choose(shown[active]);
  }
}

// initPalette wires the palette of a session page, if it has one; runner
// runs a chosen command.
/** @param {(cmd: {name: string, arg: string}, opts: {fromPalette: boolean}) => unknown} runner @param {AbortSignal} signal */
export function initPalette(runner, signal) {
  shown = [];
  active = 0;
  run = runner;
  dialog = /** @type {HTMLDialogElement | null} */ (document.querySelector('[data-palette]'));
  field = /** @type {HTMLInputElement | null} */ (dialog?.querySelector('[data-palette-input]') || null);
  if (!dialog || !field) return;
  field.addEventListener('input', filter);
  field.addEventListener('keydown', onKey);
  dialog.addEventListener('click', (e) => {
    if (e.target === dialog) dialog?.close(); // the backdrop
    const item = e.target instanceof Element ? e.target.closest('[data-palette-item]') : null;
    if (item instanceof HTMLElement) choose(item);
  });
  dialog.addEventListener('close', () => {
    if (document.activeElement === document.body || !document.activeElement) input.focus();
  });
  document.addEventListener('keydown', (e) => {
    if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'k') {
      e.preventDefault();
      if (dialog?.open) dialog.close();
      else openPalette();
    }
  }, { signal });
}
