// Queued messages: those sent while a turn runs wait on the server and
// are listed above the composer until their turn starts. Each can be
// edited or cancelled until then (PATCH or DELETE …/queued/{id}; 409 once
// it has started). Steers waiting for the running turn's next step are
// listed first, marked, and cannot be changed.
//
//   [data-composer] [data-queued-list] > [data-testid="queued"][data-queued-id][data-steer?]
//
// Their text arrives as JSON and goes in through textContent.

import { APIError, api } from './http.js';
import { showError } from './alerts.js';
import { button, el } from './dom.js';
import { composer, urls } from './composer.js';

// --- Queued messages ----------------------------------------------------------

// renderQueued shows list (the queued event, a snapshot) as the queue. A
// message being edited keeps its editor while it is still queued.
export function renderQueued(list) {
  const ol = composer?.querySelector('[data-queued-list]');
  if (!(ol instanceof HTMLElement)) return;
  /** @type {Map<string, Element>} */
  const editing = new Map();
  for (const li of ol.querySelectorAll('[data-queued-id][data-editing]')) editing.set(li.getAttribute('data-queued-id') || '', li);
  ol.replaceChildren();
  for (const q of list || []) {
    const kept = editing.get(String(q?.id ?? ''));
    if (kept) ol.append(kept);
    else addQueued(q);
  }
  ol.hidden = ol.children.length === 0;
}

function addQueued(q) {
  const ol = composer?.querySelector('[data-queued-list]');
  if (!(ol instanceof HTMLElement) || !q) return;
  const id = String(q.id ?? '');
  if (id && ol.querySelector(`[data-queued-id="${CSS.escape(id)}"]`)) return;
  const li = el('li', 'queued');
  li.setAttribute('data-testid', 'queued');
  li.dataset.queuedId = id;
  const text = typeof q.text === 'string' ? q.text : '';
  if (q.steer) {
    li.dataset.steer = '';
    li.append(el('span', 'queued-label', 'Steer'), el('span', 'queued-text', text));
  } else {
    li.append(el('span', 'queued-label', 'Queued'), el('span', 'queued-text', text));
    if (id && !id.startsWith('local-')) li.append(actions(li, id, text));
  }
  ol.append(li);
  ol.hidden = false;
}

// actions are a queued message's Edit and Cancel buttons.
function actions(li, id, text) {
  const span = el('span', 'queued-actions');
  const edit = button('Edit', 'queued-edit');
  edit.setAttribute('data-testid', 'queued-edit');
  edit.addEventListener('click', () => startEdit(li, id, text));
  const cancel = button('Cancel', 'queued-cancel');
  cancel.setAttribute('data-testid', 'queued-cancel');
  cancel.setAttribute('aria-label', 'Cancel this queued message');
  cancel.addEventListener('click', async () => {
    try {
      await api('DELETE', queuedURL(id));
    } catch (err) {
      showError(queueFailure('cancel', err));
    }
  });
  span.append(edit, cancel);
  return span;
}

function queuedURL(id) {
  return `${urls.session}/queued/${encodeURIComponent(id)}`;
}

function queueFailure(what, err) {
  if (err instanceof APIError && err.status === 409) return `Too late to ${what} it: its turn has started.`;
  return `Could not ${what} the queued message: ${err instanceof Error ? err.message : err}`;
}

// startEdit turns a queued message into a small editor; Save sends the
// change, and the queued event redraws the list.
function startEdit(li, id, text) {
  li.dataset.editing = '';
  const area = el('textarea', 'queued-editor');
  area.setAttribute('data-testid', 'queued-editor');
  area.setAttribute('aria-label', 'Edit the queued message');
  area.value = text;
  const save = button('Save', 'queued-save');
  save.setAttribute('data-testid', 'queued-save');
  const back = button('Keep', 'queued-keep');
  back.title = 'Keep the message as it was';
  const done = () => {
    delete li.dataset.editing;
    li.replaceChildren(el('span', 'queued-label', 'Queued'), el('span', 'queued-text', text), actions(li, id, text));
  };
  save.addEventListener('click', async () => {
    try {
      const q = await api('PATCH', queuedURL(id), { text: area.value });
      text = typeof q?.text === 'string' ? q.text : area.value;
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

// queuedAnswer shows a message the server queued at once, whatever shape
// the answer's "queued" takes; the queued event then redraws the list.
export function queuedAnswer(res, text) {
  const q = res?.queued;
  if (Array.isArray(q)) renderQueued(q);
  else if (q && typeof q === 'object') addQueued({ id: q.id, text: q.text ?? text });
  else if (typeof q === 'string' || typeof q === 'number') addQueued({ id: q, text });
  else addQueued({ id: `local-${Date.now()}`, text });
}
