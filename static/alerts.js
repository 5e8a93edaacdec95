// The page's alert region (#alerts): one error at a time, in plain words,
// gone by itself; and the "Archived … · Undo" notice. Every module says
// what failed through showError.

import { button, el } from './dom.js';

// errorFor is how long an error stays before it goes by itself; a pointer
// over it or the keyboard in it holds it.
const errorFor = 8000;

// showError puts a message in the page's alert region (role=alert), in
// place of the one before: one at a time, gone by itself after a while or
// with its ×. link, when it is an http(s) URL, is shown after it as a link
// that opens it.
export function showError(text, link) {
  const region = document.getElementById('alerts');
  if (!region) return;
  region.querySelector('[data-testid="error-toast"]')?.remove();
  const toast = el('p', 'toast');
  toast.dataset.testid = 'error-toast';
  const span = el('span', '', plainWords(text));
  const href = safeURL(link);
  if (href) {
    const a = el('a', '', 'Open it there');
    a.href = href;
    a.target = '_blank';
    a.rel = 'noopener';
    span.append(' ', a);
  }
  const close = button('×');
  close.setAttribute('aria-label', 'Dismiss');
  close.addEventListener('click', () => toast.remove());
  toast.append(span, close);
  let timer = setTimeout(() => toast.remove(), errorFor);
  const hold = () => clearTimeout(timer);
  const release = () => {
    clearTimeout(timer);
    timer = setTimeout(() => toast.remove(), errorFor);
  };
  toast.addEventListener('mouseenter', hold);
  toast.addEventListener('focusin', hold);
  toast.addEventListener('mouseleave', release);
  toast.addEventListener('focusout', release);
  region.append(toast);
}

// plainWords drops the words of the API's error kinds that tell a person
// nothing ("bad input: unknown setting: …" reads "Unknown setting: …").
function plainWords(text) {
  const t = String(text).replace(/(^|: )bad input: /, '$1');
  return t.charAt(0).toUpperCase() + t.slice(1);
}

function safeURL(link) {
  if (typeof link !== 'string' || !link) return '';
  try {
    const u = new URL(link, location.href);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : '';
  } catch {
    return '';
  }
}

// undoFor is how long an "Undo" stays offered.
const undoFor = 6000;

// offerUndo shows "<what> · Undo" for a few seconds; Undo runs undo, and
// says so if it fails.
export function offerUndo(what, undo) {
  const region = document.getElementById('alerts');
  if (!region) return;
  region.querySelector('[data-testid="undo-notice"]')?.remove();
  const note = el('p', 'toast undo');
  note.setAttribute('role', 'status');
  note.dataset.testid = 'undo-notice';
  const undoButton = button('Undo');
  undoButton.dataset.testid = 'undo-button';
  note.append(`${what} · `, undoButton);
  const timer = setTimeout(() => note.remove(), undoFor);
  undoButton.addEventListener('click', async () => {
    clearTimeout(timer);
    undoButton.disabled = true;
    try {
      await undo();
      note.remove();
    } catch (err) {
      note.remove();
      showError(`Could not undo: ${err.message}`);
    }
  });
  region.append(note);
}
