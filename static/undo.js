// /undo, /redo and /diff in the tab. /undo and /redo first ask the server
// what they would do and show its confirm card (web/undo.templ: the turn,
// the files restored, created or deleted, those changed by hand named);
// Undo posts the turn the card names, and the turn's messages fold away.
// /diff shows the server's diff card (not kept).
//
//   #messages > [data-testid="undo-card"][data-turn][data-url]
//       [data-undo-confirm] [data-undo-cancel]
//   #messages > [data-testid="diff-card"] [data-undo-cancel]
//   #messages article[data-message-id].undone   a turn taken back

import { api } from './http.js';
import { fragment } from './dom.js';
import { showError } from './alerts.js';
import { note, urls } from './composer.js';
import { keepBottom } from './scroll.js';

/**
 * @typedef {{path: string, action: string, by_hand?: boolean}} UndoFile
 * @typedef {{turn: string, redo?: boolean, files: UndoFile[], messages: string[], files_only?: boolean, html?: string}} UndoPlan
 */

// The cards' buttons: one listener on the document, as cards come and go.
function onCardClick(e) {
  const t = e.target instanceof Element ? e.target : null;
  if (!t) return;
  const cancel = t.closest('[data-undo-cancel]');
  if (cancel) {
    cancel.closest('[data-testid="undo-card"], [data-testid="diff-card"]')?.remove();
    return;
  }
  const confirm = t.closest('[data-undo-confirm]');
  const card = /** @type {HTMLElement | null} */ (confirm?.closest('[data-testid="undo-card"]') ?? null);
  if (!card || !(confirm instanceof HTMLButtonElement)) return;
  confirm.disabled = true;
  apply(card).catch((err) => {
    confirm.disabled = false;
    showError(`It could not be done: ${err.message}`);
  });
}

/** @param {HTMLElement} card */
async function apply(card) {
  const url = card.dataset.url || '';
  const plan = /** @type {UndoPlan} */ (await api('POST', url, { turn: card.dataset.turn }));
  card.remove();
  markUndone(plan.messages || [], !plan.redo);
  const n = plan.files?.length || 0;
  const files = n === 1 ? '1 file' : `${n} files`;
  if (plan.redo) note(`Turn brought back (${files}).`);
  else if (plan.files_only) note(`Files restored (${files}); the turn's messages are in an earlier thread.`);
  else note(`Turn undone (${files}).`);
}

// markUndone hides (or shows again) a turn's messages on the page: the
// model no longer sees them; the document keeps them, marked undone.
/**
 * @param {string[]} ids
 * @param {boolean} undone
 */
export function markUndone(ids, undone) {
  for (const id of ids) {
    for (const m of document.querySelectorAll(`[data-message-id="${CSS.escape(id)}"]`)) {
      const box = /** @type {HTMLElement} */ (m.closest('details.replaced') ?? m);
      box.classList.toggle('undone', undone);
      box.hidden = undone;
    }
    // The turn's usage line goes with the answer it follows, as a reload
    // renders it.
    for (const line of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(`[data-testid="turn-usage"][data-after="${CSS.escape(id)}"]`))) {
      line.hidden = undone;
    }
  }
}

/** @param {DocumentFragment} f */
function show(f) {
  const box = document.getElementById('messages');
  if (!box) return;
  for (const old of box.querySelectorAll('[data-testid="undo-card"], [data-testid="diff-card"]')) old.remove();
  box.querySelector(':scope > .empty')?.remove();
  box.append(f);
  keepBottom();
}

/**
 * @param {boolean} redo
 */
async function ask(redo) {
  const plan = /** @type {UndoPlan} */ (await api('GET', `${urls.session}/${redo ? 'redo' : 'undo'}`));
  if (plan.html) show(fragment(plan.html));
}

export const undoActions = {
  undo: () => ask(false),
  redo: () => ask(true),
  /** @param {string} arg */
  diff: async (arg) => {
    const a = (arg || '').trim();
    const q = new URLSearchParams();
    if (a === 'last') q.set('since', 'last');
    else if (a) q.set('path', a);
    const res = /** @type {{html: string}} */ (await api('GET', `${urls.session}/diff?${q}`));
    show(fragment(res.html));
  },
};

// initUndo makes the buttons of the /undo and /diff cards work.
/** @param {AbortSignal} signal the session's (static/swap.js) */
export function initUndo(signal) {
  document.addEventListener('click', onCardClick, { signal });
}
