// The palette (Ctrl-K, Cmd-K on a Mac): a session switcher and the
// commands. What is typed is fuzzy-matched against the sessions' titles,
// names, folders and IDs (GET /api/sessions, fetched once per open), and
// the commands' names and help ("markdown" finds /export); starting with
// "/" it lists only commands, and "/model " the arguments that command
// takes (completion.js). With nothing typed: the sessions opened lately
// (recent.js), the one this tab showed before first, then the commands in
// the server's order, so Ctrl-K Enter goes back to the previous session;
// typed without "/", the sessions that match come before the commands
// that do. Arrows choose, Enter (or a tap) opens a session, runs a command
// that needs no argument or lists its arguments, or puts it in the
// composer with the caret after it; Esc closes (the <dialog> does that).
//
//   [data-palette] [data-palette-input] [data-palette-item][data-command][data-args]
//   [data-palette] [data-palette-item][data-session] | [data-arg]   added as typed
//   [data-palette] [data-palette-empty]

import { input, saveDraft, stashDraft, urls } from './composer.js';
import { argumentChoices, best, completes, forgetChoices, sessionsList } from './completion.js';
import { forget, openSession, recentSessions } from './recent.js';
import { el } from './dom.js';
import { themeCommand } from './theme.js';
import { showError } from './alerts.js';

export { score } from './completion.js';

/** @type {HTMLDialogElement | null} */
let dialog = null;
/** @type {HTMLInputElement | null} */
let field = null;
/** @type {HTMLElement[]} */
let shown = []; // the items listed now, best first
let active = 0;
let asked = 0; // the latest filter: an older one's answer is dropped
// listing is the latest filter's run: a query without "/" waits for the
// sessions, and Enter pressed meanwhile acts on what that query lists,
// not on the list it replaces (typed "title" and Enter at once ran the
// first item of the unfiltered list).
/** @type {Promise<void>} */
let listing = Promise.resolve();
/** @type {((cmd: {name: string, arg: string}, opts: {fromPalette: boolean}) => unknown) | null} */
let run = null; // commands.js's runCommand, given at init (no import cycle)

const maxSessions = 30; // rows of sessions drawn for a query
const maxRecent = 8; // with nothing typed

function commandItems() {
  return /** @type {HTMLElement[]} */ ([...(dialog?.querySelectorAll('[data-palette-item][data-command]') || [])]);
}

/** sessionItem is a row for session s. @param {any} s */
function sessionItem(s) {
  const li = el('li', 'palette-item palette-session');
  li.id = `palette-s-${s.id}`;
  li.setAttribute('role', 'option');
  li.dataset.paletteItem = '';
  li.dataset.session = s.id;
  li.setAttribute('data-testid', 'palette-session');
  const folder = typeof s.cwd === 'string' && s.cwd ? s.cwd.replace(/\/+$/, '').split('/').pop() || s.cwd : '';
  li.append(el('span', 'palette-title', s.title || (s.parent_title ? `Fork of ${s.parent_title}` : 'Untitled')));
  li.append(el('span', 'palette-help', [folder, s.name || s.id.slice(0, 8)].filter(Boolean).join(' · ')));
  if (s.cwd) li.title = s.cwd;
  return li;
}

/** argItem is a row for one argument of /name. @param {string} name @param {import('./completion.js').Choice} c */
function argItem(name, c) {
  const li = el('li', 'palette-item');
  li.id = `palette-a-${name}-${c.value.replace(/\s/g, '-')}`;
  li.setAttribute('role', 'option');
  li.setAttribute('data-testid', 'palette-arg');
  li.dataset.paletteItem = '';
  li.dataset.arg = c.value;
  li.dataset.argOf = name;
  li.append(el('code', '', `/${name} ${c.value}`));
  const help = [c.label, c.detail].filter(Boolean).join(' · ');
  if (help) li.append(el('span', 'palette-help', help));
  return li;
}

/** rankSessions are the sessions that match q, best first.
 * @param {any[]} list @param {string} q */
function rankSessions(list, q) {
  const recent = recentSessions();
  const here = document.body.dataset.sessionId || '';
  const ranked = [];
  for (const [i, s] of list.entries()) {
    if (typeof s?.id !== 'string' || s.damaged || s.id === here) continue;
    const folder = typeof s.cwd === 'string' ? s.cwd : '';
    let sc = best(q, [s.title || '', s.name || '', folder.split('/').pop() || '', folder]);
    // An ID matches by its start, as /resume takes it: a fuzzy match of
    // hex digits would find nearly every session.
    if (s.id.startsWith(q.toLowerCase())) sc = Math.max(sc ?? 0, 20 + q.length * 3);
    if (sc === null) continue;
    const r = recent.indexOf(s.id);
    ranked.push({ s, sc: sc + (r < 0 ? 0 : 2 - r / 25), i });
  }
  ranked.sort((a, b) => b.sc - a.sc || a.i - b.i);
  return ranked;
}

/** recentFirst are the sessions opened lately, most recent first, then
 * the listing's newest. @param {any[]} list */
function recentFirst(list) {
  const here = document.body.dataset.sessionId || '';
  const byID = new Map(list.filter((s) => typeof s?.id === 'string' && !s.damaged).map((s) => [s.id, s]));
  const out = [];
  for (const id of recentSessions()) {
    const s = byID.get(id);
    if (!s) {
      if (list.length) forget(id); // deleted, or archived
      continue;
    }
    if (id !== here) out.push(s);
    if (out.length === maxRecent) return out;
  }
  for (const s of byID.values()) {
    if (out.length === maxRecent) break;
    if (s.id !== here && !out.includes(s)) out.push(s);
  }
  return out;
}

// filter lists what matches what is typed, best first.
async function filter() {
  if (!dialog || !field) return;
  const n = ++asked;
  const raw = field.value.replace(/^\s+/, '');
  const list = dialog.querySelector('.palette-list');
  const cmds = commandItems();
  const names = new Set(cmds.map((c) => c.dataset.command));
  /** @type {HTMLElement[]} */
  let rows = [];
  const argMode = /^\/([a-z][a-z0-9_:-]*)\s+([\s\S]*)$/i.exec(raw);
  if (argMode && names.has(argMode[1].toLowerCase()) && completes(argMode[1].toLowerCase())) {
    const name = argMode[1].toLowerCase();
    let choices = [];
    try {
      choices = await argumentChoices(name, argMode[2].trim(), urls.session || '');
    } catch {
      choices = [];
    }
    if (n !== asked) return;
    rows = choices.map((c) => argItem(name, c));
  } else {
    const slash = raw.startsWith('/');
    const q = (slash ? raw.slice(1) : raw).trim();
    const ranked = []; // {item, s, i}
    for (const [i, item] of cmds.entries()) {
      let s = q ? best(q, [item.dataset.command || '']) : 0;
      // The help by its words ("markdown" finds /export), below any name.
      if (s === null && q.length >= 3) {
        const help = item.querySelector('.palette-help')?.textContent?.toLowerCase() || '';
        if (help.includes(q.toLowerCase())) s = 1;
      }
      if (s !== null) ranked.push({ item, s: q ? s : -1000, i });
    }
    // Without a "/", sessions come before commands: the palette is first a
    // switcher, and a command is a "/" away.
    if (!slash) {
      let sessions = [];
      try {
        sessions = await sessionsList();
      } catch {
        sessions = [];
      }
      if (n !== asked) return;
      if (q) {
        for (const [j, r] of rankSessions(sessions, q).slice(0, maxSessions).entries()) ranked.push({ item: sessionItem(r.s), s: 1000 + r.sc, i: -maxSessions + j });
      } else {
        for (const [j, s] of recentFirst(sessions).entries()) ranked.push({ item: sessionItem(s), s: 0, i: -maxRecent + j });
      }
    }
    ranked.sort((a, b) => b.s - a.s || a.i - b.i);
    rows = ranked.map((r) => r.item);
  }
  if (n !== asked) return;
  for (const old of dialog.querySelectorAll('[data-palette-item]:not([data-command])')) old.remove();
  const listed = new Set(rows);
  for (const c of cmds) c.hidden = !listed.has(c);
  for (const r of rows) list?.append(r);
  shown = rows;
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
  forgetChoices(); // fetched once per open
  field.value = '';
  dialog.showModal();
  field.focus();
  listing = filter();
}

/** typeInto puts text in the palette's field and lists what follows it. @param {string} text */
function typeInto(text) {
  if (!field) return;
  field.value = text;
  field.focus();
  field.setSelectionRange(text.length, text.length);
  listing = filter();
}

// choose acts on item: opens a session, runs a command with the argument
// picked, lists a command's arguments, runs a command that needs none, or
// puts it in the composer when it needs one ("/title " with the caret
// after it). Either way the draft stays: a command that runs at once
// never touches the composer, and one that needs an argument sets the
// draft aside until it has run.
function choose(item) {
  if (!dialog) return;
  if (!item) {
    // Nothing listed: what was typed may be a whole command ("/title Notes").
    const m = /^\/([a-z][a-z0-9_:-]*)(?:\s+([\s\S]*))?$/i.exec(field?.value.trim() || '');
    if (m && commandItems().some((c) => c.dataset.command === m[1].toLowerCase())) {
      dialog.close();
      input?.focus();
      run?.({ name: m[1].toLowerCase(), arg: (m[2] || '').trim() }, { fromPalette: true });
    }
    return;
  }
  if (item.dataset.session) {
    dialog.close();
    openSession(item.dataset.session);
    return;
  }
  if (item.dataset.argOf) {
    dialog.close();
    input?.focus();
    run?.({ name: item.dataset.argOf, arg: item.dataset.arg || '' }, { fromPalette: true });
    return;
  }
  const name = item.dataset.command || '';
  const args = item.dataset.args || '';
  if (completes(name)) {
    typeInto(`/${name} `);
    return;
  }
  dialog.close();
  // A custom command's hint ("[file]") is the peers' and may be needed.
  if (input && args && (!args.startsWith('[') || item.dataset.custom !== undefined)) {
    if (input.value.trim() !== '') stashDraft(input.value);
    input.value = `/${name} `;
    saveDraft();
    input.focus();
    input.setSelectionRange(input.value.length, input.value.length);
    return;
  }
  input?.focus();
  run?.({ name, arg: '' }, { fromPalette: true });
}

function onKey(e) {
  if (e.isComposing) return;
  switch (e.key) {
    case 'ArrowDown':
    case 'ArrowUp':
      e.preventDefault();
      if (!shown.length) return;
      active = (active + (e.key === 'ArrowDown' ? 1 : shown.length - 1)) % shown.length;
      mark();
      return;
    case 'Tab': {
      // Tab completes a command or an argument in the field, as the / menu does.
      const cur = shown[active];
      if (!cur || e.shiftKey || cur.dataset.session) return;
      e.preventDefault();
      if (cur.dataset.argOf) typeInto(`/${cur.dataset.argOf} ${cur.dataset.arg}`);
      else typeInto(`/${cur.dataset.command} `);
      return;
    }
    case 'Enter': {
      e.preventDefault();
      const typed = asked;
      listing.then(() => {
        // Only for the query Enter was pressed on, and while it is open.
        if (typed === asked && dialog?.open) choose(shown[active]);
      });
    }
  }
}

/** initPalette wires the page's palette, if it has one: the session
 * page's (web/palette.templ, in its composer) or another page's
 * (web/switcher.templ); runner runs a chosen command.
 * @param {(cmd: {name: string, arg: string}, opts: {fromPalette: boolean}) => unknown} runner @param {AbortSignal} signal */
export function initPalette(runner, signal) {
  shown = [];
  active = 0;
  run = runner;
  dialog = /** @type {HTMLDialogElement | null} */ (document.querySelector('[data-palette]'));
  field = /** @type {HTMLInputElement | null} */ (dialog?.querySelector('[data-palette-input]') || null);
  if (!dialog || !field) return;
  field.addEventListener('input', () => {
    listing = filter();
  });
  field.addEventListener('keydown', onKey);
  dialog.addEventListener('click', (e) => {
    if (e.target === dialog) dialog?.close(); // the backdrop
    const item = e.target instanceof Element ? e.target.closest('[data-palette-item]') : null;
    if (item instanceof HTMLElement) choose(item);
  });
  dialog.addEventListener('close', () => {
    if (input && (document.activeElement === document.body || !document.activeElement)) input.focus();
  });
  // The header's button: the way in on a phone, which has no Ctrl-K.
  document.addEventListener('click', (e) => {
    if (e.target instanceof Element && e.target.closest('[data-open-palette]')) openPalette();
  }, { signal });
  document.addEventListener('keydown', (e) => {
    if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'k') {
      e.preventDefault();
      if (dialog?.open) dialog.close();
      else openPalette();
    }
  }, { signal });
}

/** initSwitcher wires the palette of a page without a composer
 * (web/switcher.templ): sessions, and the commands that need no session. */
export function initSwitcher() {
  initPalette(({ name, arg }) => {
    try {
      if (name === 'theme') themeCommand(arg);
    } catch (err) {
      showError(`/${name}: ${err instanceof Error ? err.message : err}`);
    }
  }, new AbortController().signal);
}
