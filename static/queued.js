// Queued messages: those sent while a turn runs wait on the server and
// are listed under the composer until their turn starts.
//
//   [data-composer] [data-queued-list] > [data-testid="queued"][data-queued-id]
//
// Their text arrives as JSON and goes in through textContent.

import { el } from './dom.js';
import { composer } from './composer.js';

// --- Queued messages ----------------------------------------------------------

// renderQueued shows list (the queued event, a snapshot) as the queue.
export function renderQueued(list) {
  const ol = composer?.querySelector('[data-queued-list]');
  if (!ol) return;
  ol.replaceChildren();
  for (const q of list || []) addQueued(q);
  ol.hidden = ol.children.length === 0;
}

function addQueued(q) {
  const ol = composer?.querySelector('[data-queued-list]');
  if (!ol || !q) return;
  const id = String(q.id ?? '');
  if (id && ol.querySelector(`[data-queued-id="${CSS.escape(id)}"]`)) return;
  const li = el('li', 'queued');
  li.setAttribute('data-testid', 'queued');
  li.dataset.queuedId = id;
  li.append(el('span', 'queued-label', 'Queued'), el('span', 'queued-text', typeof q.text === 'string' ? q.text : ''));
  ol.append(li);
  ol.hidden = false;
}

// queuedAnswer shows a message the server queued at once, whatever shape
// the answer's "queued" takes; the queued event then redraws the list.
export function queuedAnswer(res, text) {
  const q = res?.queued;
  if (Array.isArray(q)) renderQueued(q);
  else if (q && typeof q === 'object') addQueued({ id: q.id, text: q.text ?? text });
  else if (typeof q === 'string' || typeof q === 'number') addQueued({ id: q, text });
  else addQueued({ id: `local-${Date.now()}`, text });
}
