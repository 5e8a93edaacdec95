// The project's memory in the side panel: .myco/memory.md, which the
// agent's remember tool adds to and every new session reads. "Edit
// project memory" loads it (GET …/memory) into a form; Save writes it
// (PUT, with the sha256 it was read with, so a fact saved meanwhile is
// not overwritten) and the server reloads the session's instructions.
//
//   [data-testid="memory"][data-memory-url]
//     [data-memory-open]  [data-memory-form] > [data-memory-path], textarea,
//     [data-memory-cancel]
import { APIError, api } from './http.js';
import { showError } from './alerts.js';

/** @type {WeakMap<HTMLElement, string>} the sha256 each form was read with */
const bases = new WeakMap();

// onMemoryClick opens or closes the editor; it reports whether the click
// was its own.
export function onMemoryClick(e) {
  const open = e.target.closest('[data-memory-open]');
  if (open) {
    toggle(open.closest('[data-testid="memory"]'));
    return true;
  }
  const cancel = e.target.closest('[data-memory-cancel]');
  if (cancel) {
    close(cancel.closest('[data-testid="memory"]'));
    return true;
  }
  return false;
}

// onMemorySubmit saves the form: the save, or null when the submit was
// not its own.
export function onMemorySubmit(e) {
  const form = e.target.closest('[data-memory-form]');
  if (!form) return null;
  e.preventDefault();
  return save(form.closest('[data-testid="memory"]'));
}

// memoryOpen reports whether part holds an editor the person opened: the
// panel event leaves such a part alone.
export function memoryOpen(part) {
  return !!part.querySelector('[data-memory-form]:not([hidden])');
}

async function toggle(box) {
  const form = box?.querySelector('[data-memory-form]');
  if (!form) return;
  if (!form.hidden) {
    close(box);
    return;
  }
  const button = box.querySelector('[data-memory-open]');
  button.disabled = true;
  try {
    const m = await api('GET', box.dataset.memoryUrl);
    box.querySelector('[data-memory-path]').textContent = typeof m?.path === 'string' ? m.path : '.myco/memory.md';
    const area = form.querySelector('textarea');
    area.value = typeof m?.text === 'string' ? m.text : '';
    area.placeholder = m?.exists ? '' : 'Empty: no fact saved yet. Write what every session of this project should know.';
    bases.set(box, typeof m?.sha256 === 'string' ? m.sha256 : '');
    form.hidden = false;
    button.setAttribute('aria-expanded', 'true');
    area.focus();
  } catch (err) {
    showError(`Could not read the project's memory: ${err.message}`);
  } finally {
    button.disabled = false;
  }
}

// close hides the editor, the focus back on its button.
function close(box) {
  const form = box?.querySelector('[data-memory-form]');
  if (!form) return;
  form.hidden = true;
  const open = box.querySelector('[data-memory-open]');
  open?.setAttribute('aria-expanded', 'false');
  open?.focus();
}

async function save(box) {
  const form = box?.querySelector('[data-memory-form]');
  if (!form) return;
  const area = form.querySelector('textarea');
  const button = form.querySelector('[type="submit"]');
  button.disabled = true;
  try {
    const m = await api('PUT', box.dataset.memoryUrl, { text: area.value, base_sha256: bases.get(box) || '' });
    bases.set(box, typeof m?.sha256 === 'string' ? m.sha256 : '');
    close(box);
  } catch (err) {
    const changed = err instanceof APIError && err.status === 409;
    showError(changed
      ? `Not saved: ${err.message}. Copy your text, then close and open the memory again.`
      : `Could not save the project's memory: ${err.message}`);
  } finally {
    button.disabled = false;
  }
}
