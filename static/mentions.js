// Notes, !command and @path (issue 12). A note event brings a card into
// the conversation (a note from elsewhere, a command the person ran, whose
// output streams in as tool.output under the note's ID) or a chip above
// the composer (an attached file or folder, removable). The composer hands
// a message starting with ! to runOwnCommand, and @paths in a message to
// attachMentions before it is sent; Tab after @ completes a path.

import { api } from './http.js';
import { showError } from './alerts.js';
import { el, fragment } from './dom.js';
import { keepBottom } from './scroll.js';
import { box } from './thread.js';
import { setRunning, turnRunning } from './status.js';

/**
 * @typedef {{id: string, kind: string, from?: string, text: string, at?: string,
 *   command?: string, exit?: number, path?: string, removed?: boolean, html?: string}} NoteEvent
 */

/** @param {string} [at] */
function clock(at) {
  const d = at ? new Date(at) : new Date();
  return d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hour12: false });
}

/**
 * @param {string} id
 * @returns {HTMLElement | null}
 */
function noteEl(id) {
  return document.querySelector(`[data-note-id="${CSS.escape(id)}"]`);
}

/** @param {Element} node */
function place(node) {
  const b = box();
  if (!b) return;
  b.querySelector(':scope > .empty')?.remove();
  b.append(node);
  keepBottom();
}

/** @param {NoteEvent} d */
export function onNote(d) {
  if (!d?.id) return;
  if (d.removed) {
    noteEl(d.id)?.remove();
    return;
  }
  if (d.kind === 'command') commandRunning(typeof d.exit !== 'number');
  if (d.html) return placeRendered(d);
  if (d.kind === 'file') return addChip(d);
  if (d.kind === 'command') return commandCard(d);
  if (noteEl(d.id)) return;
  const card = el('aside', 'note-card');
  card.setAttribute('data-testid', 'note-card');
  card.dataset.noteId = d.id;
  const head = el('div', 'note-head');
  head.textContent = `Note from ${d.from || 'elsewhere'}, ${clock(d.at)}:`;
  const text = el('div', 'note-text');
  text.textContent = d.text;
  card.append(head, text);
  place(card);
}

/** While a !command runs, the Stop button (shown for a turn otherwise)
 * stops it too, and hides again once it ends with no turn running (a
 * command alone brings no status event: the chip stays as it was).
 * @param {boolean} on */
function commandRunning(on) {
  if (on) {
    const stop = /** @type {HTMLElement | null} */ (document.querySelector('[data-composer] [data-stop]'));
    if (stop) stop.hidden = false;
  } else if (!turnRunning()) {
    setRunning(false);
  }
}

/** placeRendered puts the server's card (or chip) for d where the page
 * has it: a chip above the composer, a card at the end of the
 * conversation; a command's outcome replaces its running card.
 * @param {NoteEvent} d */
function placeRendered(d) {
  const node = fragment(d.html || '').firstElementChild;
  if (!node) return;
  const have = noteEl(d.id);
  if (d.kind === 'file') {
    if (!have) chips()?.append(node);
    return;
  }
  if (have) {
    if (typeof d.exit === 'number' && have.querySelector('[data-testid="command-output"]') === null) have.replaceWith(node);
    return;
  }
  place(node);
}

/** syncNotes brings the page up to a snapshot's notes (a tab that
 * reconnects missed their events): missing cards and chips are added, a
 * finished command's outcome shown, and chips no longer waiting go (sent
 * or removed meanwhile). Cards of notes already sent stay where they were.
 * @param {NoteEvent[]} notes */
export function syncNotes(notes) {
  const waiting = new Set(notes.map((n) => n.id));
  for (const chip of document.querySelectorAll('[data-testid="attachment-chip"]')) {
    const id = /** @type {HTMLElement} */ (chip).dataset.noteId || '';
    if (!waiting.has(id)) chip.remove();
  }
  for (const n of notes) onNote(n);
}

// A chip's × takes its attachment back (chips the page rendered too).
async function onChipClick(e) {
  const x = e.target instanceof Element ? e.target.closest('[data-remove-note]') : null;
  if (!(x instanceof HTMLElement)) return;
  const id = x.dataset.removeNote || '';
  try {
    await api('DELETE', `${base()}/notes/${encodeURIComponent(id)}`);
    noteEl(id)?.remove();
  } catch (err) {
    showError(`Could not remove the attachment: ${err instanceof Error ? err.message : err}`);
  }
}

/** @param {NoteEvent} d */
function commandCard(d) {
  let card = noteEl(d.id);
  if (!card) {
    card = el('div', 'note-card command-card');
    // A tool card's attributes: tool.output of the command streams in.
    card.setAttribute('data-testid', 'tool-call');
    card.dataset.toolUseId = d.id;
    card.dataset.noteId = d.id;
    const head = el('div', 'note-head');
    head.setAttribute('data-testid', 'command-head');
    head.textContent = `You ran: ${d.command || ''}`;
    card.append(head);
    place(card);
  }
  if (typeof d.exit !== 'number') return;
  card.querySelector('[data-testid="tool-live"]')?.remove();
  const out = el('pre', 'command-output');
  out.setAttribute('data-testid', 'command-output');
  out.textContent = d.text;
  card.append(out);
  keepBottom();
}

/** @param {NoteEvent} d */
function addChip(d) {
  const bar = chips();
  if (!bar || noteEl(d.id)) return;
  const chip = el('span', 'mention-chip');
  chip.setAttribute('data-testid', 'attachment-chip');
  chip.dataset.noteId = d.id;
  chip.textContent = `@${d.path || ''}`;
  const x = el('button', 'mention-remove');
  x.type = 'button';
  x.textContent = '×';
  x.dataset.removeNote = d.id;
  x.setAttribute('aria-label', `Remove ${d.path || 'attachment'}`);
  chip.append(x);
  bar.append(chip);
}

/** clearChips empties the bar of chips once the message they go with is
 * sent: the attachments are the message's now (the server delivers every
 * waiting note with it, or with the queued message when it starts). */
export function clearChips() {
  document.querySelector('[data-testid="mention-chips"]')?.remove();
}

/** @returns {HTMLElement | null} the bar of chips above the composer, made once */
function chips() {
  let bar = /** @type {HTMLElement | null} */ (document.querySelector('[data-testid="mention-chips"]'));
  if (bar) return bar;
  const form = document.querySelector('[data-composer-form]');
  if (!form) return null;
  bar = el('div', 'mention-chips');
  bar.setAttribute('data-testid', 'mention-chips');
  form.before(bar);
  return bar;
}

/** @returns {string} the session's API base, from the composer's messages URL */
function base() {
  const c = /** @type {HTMLElement | null} */ (document.querySelector('[data-composer]'));
  return (c?.dataset.messagesUrl || '').replace(/\/messages$/, '');
}

/**
 * runOwnCommand runs `!command` in the session's shell; it reports whether
 * raw was one.
 * @param {string} raw
 */
export function runOwnCommand(raw) {
  if (!raw.startsWith('!') || raw.startsWith('!!')) return false;
  const command = raw.slice(1).trim();
  if (!command) return false;
  api('POST', `${base()}/shell`, { command }).catch((err) =>
    showError(`Could not run the command: ${err instanceof Error ? err.message : err}`),
  );
  return true;
}

/**
 * attachMentions attaches, before the message goes, every @path of text
 * that names a file or folder of the session's folder (the server decides:
 * an @word that names nothing, as @alice or @Override, stays text); a
 * refused one stops the message with the reason.
 * @param {string} text
 */
export async function attachMentions(text) {
  if (!/(?:^|\s)@\S/.test(text)) return;
  await api('POST', `${base()}/mentions`, { text });
}

/**
 * completePath completes the @path before the caret on Tab; it reports
 * whether it handled the key, and 'file' when the @word now names one
 * file whole (nothing more to pick).
 * @param {HTMLTextAreaElement} input
 * @returns {Promise<boolean | 'file'>}
 */
export async function completePath(input) {
  const before = input.value.slice(0, input.selectionStart);
  const m = /(?:^|\s)@(\S*)$/.exec(before);
  if (!m) return false;
  const prefix = m[1];
  /** @type {{paths: string[]}} */
  const res = await api('GET', `${base()}/paths?prefix=${encodeURIComponent(prefix)}`);
  const paths = res?.paths || [];
  if (!paths.length) return true;
  let common = paths[0];
  for (const p of paths) while (!p.startsWith(common)) common = common.slice(0, -1);
  if (common.length > prefix.length) {
    const at = before.length - prefix.length;
    input.value = input.value.slice(0, at) + common + input.value.slice(before.length);
    input.selectionStart = input.selectionEnd = at + common.length;
  }
  return paths.length === 1 && common === paths[0] && !common.endsWith('/') ? 'file' : true;
}

// initMentions makes a chip's × work, for chips the page rendered too.
/** @param {AbortSignal} signal the session's (static/swap.js) */
export function initMentions(signal) {
  document.addEventListener('click', onChipClick, { signal });
}
