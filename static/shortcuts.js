// The keys every page has beside Ctrl-K (palette.js): ? or Ctrl-/ opens
// the sheet of keyboard shortcuts (web/shortcuts.templ), and Alt-` goes
// back to the session this tab showed before (recent.js), and again
// forth. Alt-` rather than Ctrl-Tab, which the browser keeps for its
// tabs; e.code, since on a Mac Option-` is a dead key.
//
//   [data-shortcut-sheet]   the <dialog>

import { isTyping } from './dom.js';
import { noteVisit, openSession, previousSession } from './recent.js';

/** openShortcuts shows the sheet; a second press closes it. */
export function openShortcuts() {
  const d = document.querySelector('[data-shortcut-sheet]');
  if (!(d instanceof HTMLDialogElement)) return;
  if (d.open) d.close();
  else d.showModal();
}

/** @param {KeyboardEvent} e */
function onKey(e) {
  if (e.defaultPrevented || e.isComposing) return;
  const sheet = (e.key === '?' && !e.ctrlKey && !e.metaKey && !e.altKey && !isTyping(e.target))
    || ((e.ctrlKey || e.metaKey) && !e.altKey && (e.key === '/' || e.code === 'Slash'));
  if (sheet) {
    e.preventDefault();
    openShortcuts();
    return;
  }
  if (e.code === 'Backquote' && e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey) {
    const id = previousSession(document.body.dataset.sessionId || '');
    if (!id) return;
    e.preventDefault();
    for (const d of document.querySelectorAll('dialog[open]')) if (d instanceof HTMLDialogElement) d.close();
    openSession(id);
  }
}

/** initShortcuts wires the page's keys (once per page: a session swapped
 * in keeps them) and notes the session shown, if any. */
export function initShortcuts() {
  document.addEventListener('keydown', onKey);
  document.addEventListener('click', (e) => {
    const d = e.target;
    if (d instanceof HTMLDialogElement && d.matches('[data-shortcut-sheet]')) d.close(); // the backdrop
  });
  noteVisit(document.body.dataset.sessionId || '');
}
