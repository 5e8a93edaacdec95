// Queued messages: those sent while a turn runs wait on the server and
// are listed above the composer until their turn starts. The list is the
// server's (web/queued.templ), from the page, the queued event and a
// snapshot; each message can be edited or cancelled until it starts
// (PATCH or DELETE …/queued/{id}; 409 once it has started). Steers
// waiting for the running turn's next step are listed first, marked, and
// cannot be changed.
//
//   [data-composer] [data-queued-list] > [data-testid="queued"][data-queued-id][data-steer?]
//     [data-queued-text]  [data-queued-action="edit"|"cancel"]

import { APIError, api } from './http.js';
import { showError } from './alerts.js';
import { button, el, fragment } from './dom.js';
import { composer, urls } from './composer.js';

// --- Queued messages ----------------------------------------------------------

/** @returns {HTMLElement | null} */
function list() {
  const ol = composer?.querySelector('[data-queued-list]');
  return ol instanceof HTMLElement ? ol : null;
}

/**
 * renderQueued shows html (the server's rendering of the queue) as the
 * list. A message being edited keeps its editor while it is still queued.
 * @param {unknown} html
 */
export function renderQueued(html) {
  const ol = list();
  if (!ol || typeof html !== 'string') return;
  /** @type {Map<string, Element>} */
  const editing = new Map();
  for (const li of ol.querySelectorAll('[data-queued-id][data-editing]')) editing.set(li.getAttribute('data-queued-id') || '', li);
  const items = [...fragment(html).children].map((li) => editing.get(li.getAttribute('data-queued-id') || '') || li);
  ol.replaceChildren(...items);
  ol.hidden = ol.children.length === 0;
}

// initQueued lets the list's Edit and Cancel buttons act (the list's
// items come and go; the list stays).
export function initQueued() {
  list()?.addEventListener('click', (e) => {
    const b = e.target instanceof Element ? e.target.closest('[data-queued-action]') : null;
    const li = b?.closest('[data-queued-id]');
    if (!(li instanceof HTMLElement) || 'editing' in li.dataset) return;
    const id = li.dataset.queuedId || '';
    if (b.getAttribute('data-queued-action') === 'edit') startEdit(li, id);
    else cancel(id);
  });
}

async function cancel(id) {
  try {
    await api('DELETE', queuedURL(id));
  } catch (err) {
    showError(queueFailure('cancel', err));
  }
}

function queuedURL(id) {
  return `${urls.session}/queued/${encodeURIComponent(id)}`;
}

function queueFailure(what, err) {
  if (err instanceof APIError && err.status === 409) return `Too late to ${what} it: its turn has started.`;
  return `Could not ${what} the queued message: ${err instanceof Error ? err.message : err}`;
}

// startEdit turns a queued message into a small editor; Save sends the
// change, and the queued event redraws the list (with the server's item).
/** @param {HTMLElement} li @param {string} id */
function startEdit(li, id) {
  const shown = [...li.childNodes];
  li.dataset.editing = '';
  const area = el('textarea', 'queued-editor');
  area.setAttribute('data-testid', 'queued-editor');
  area.setAttribute('aria-label', 'Edit the queued message');
  area.value = li.querySelector('[data-queued-text]')?.textContent || '';
  const save = button('Save', 'queued-save');
  save.setAttribute('data-testid', 'queued-save');
  const back = button('Keep', 'queued-keep');
  back.title = 'Keep the message as it was';
  const done = () => {
    delete li.dataset.editing;
    li.replaceChildren(...shown);
  };
  save.addEventListener('click', async () => {
    try {
      const q = await api('PATCH', queuedURL(id), { text: area.value });
      const text = shown.find((n) => n instanceof Element && n.matches('[data-queued-text]'));
      if (text) text.textContent = typeof q?.text === 'string' ? q.text : area.value;
      done();
    } catch (err) {
      showError(queueFailure('edit', err));
      if (err instanceof APIError && err.status === 409) li.remove();
    }
  });
  back.addEventListener('click', done);
  area.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      save.click();
    } else if (e.key === 'Escape') {
      e.stopPropagation();
      done();
    }
  });
  const row = el('span', 'queued-actions');
  row.append(save, back);
  li.replaceChildren(el('span', 'queued-label', 'Queued'), area, row);
  area.focus();
}
