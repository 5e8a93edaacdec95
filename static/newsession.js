// The "New session" dialog: a button in every page's header (and on an
// empty home page) or Ctrl/Cmd+Shift+O opens it. Its form is fetched from
// the server as it opens, so the recent folders are those of now; it posts
// JSON to /api/sessions and, once the session exists, goes to its page in
// this tab (where the composer takes the focus). A refusal (a relative,
// missing or denied folder) is the server's own words, shown in the form.
//
//   <dialog data-new-session-dialog data-url="/partials/new-session">
//   [data-action="new-session"]            opens it (the page entries' click actions)
//   form[data-new-session-form] [data-folder] [data-close-dialog]

import { showError } from './alerts.js';
import { fetchFragment, api } from './http.js';

const dialog = () => /** @type {HTMLDialogElement | null} */ (document.querySelector('[data-new-session-dialog]'));

// isNewSessionKey is Ctrl+Shift+O, or Cmd+Shift+O on a Mac, as ChatGPT has
// it: a chord, so it works while the composer has the focus and never
// types into it. Pages take it before the browser (Chrome's bookmark
// manager) once they prevent its default.
function isNewSessionKey(e) {
  return (e.ctrlKey || e.metaKey) && e.shiftKey && !e.altKey && e.key.toLowerCase() === 'o';
}

let opening = false;

// openNewSession fetches the form into the dialog and shows it.
export async function openNewSession() {
  const d = dialog();
  if (!d || d.open || opening) return;
  opening = true;
  try {
    d.replaceChildren(await fetchFragment(d.dataset.url));
  } catch (err) {
    showError(`Could not open the new-session form: ${err.message}`);
    return;
  } finally {
    opening = false;
  }
  d.showModal();
  const cwd = /** @type {HTMLInputElement | null} */ (d.querySelector('[name="cwd"]'));
  cwd?.focus();
  cwd?.select(); // typing replaces the default; Enter keeps it
}

function showFormError(form, text) {
  const p = form.querySelector('[data-testid="new-session-error"]');
  const cwd = form.querySelector('[name="cwd"]');
  p.textContent = text;
  p.hidden = !text;
  if (text) cwd.setAttribute('aria-invalid', 'true');
  else cwd.removeAttribute('aria-invalid');
}

async function create(form) {
  const submit = form.querySelector('[type="submit"]');
  const title = form.querySelector('[name="title"]').value.trim();
  const body = { cwd: form.querySelector('[name="cwd"]').value.trim() };
  if (title) body.title = title;
  if (/** @type {HTMLInputElement | null} */ (form.querySelector('[name="plan"]'))?.checked) body.mode = 'plan';
  submit.disabled = true;
  form.setAttribute('aria-busy', 'true');
  try {
    const sum = await api('POST', '/api/sessions', body);
    location.assign(`/s/${encodeURIComponent(sum.id)}`);
  } catch (err) {
    // The server's reason, without the "bad input: " its sentinel adds.
    showFormError(form, err.message.replace(/^bad input: /, ''));
    form.querySelector('[name="cwd"]').focus();
    submit.disabled = false;
    form.removeAttribute('aria-busy');
  }
}

function onDialogClick(e) {
  const d = dialog();
  const folder = e.target.closest('[data-folder]');
  if (folder) {
    const cwd = /** @type {HTMLInputElement} */ (d.querySelector('[name="cwd"]'));
    cwd.value = folder.dataset.folder;
    showFormError(d.querySelector('form'), '');
    // On to the next field: the folder is filled.
    /** @type {HTMLInputElement | null} */ (d.querySelector('[name="title"]'))?.focus();
    return;
  }
  if (e.target.closest('[data-close-dialog]') || e.target === d) d.close(); // a click on the backdrop
}

// macKeys shows the key as a Mac writes it in the titles and hints.
function macKeys() {
  if (!/Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent)) return;
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-action="new-session"]'))) {
    el.title = el.title.replace('Ctrl+Shift+O', '⌘⇧O');
  }
  for (const el of document.querySelectorAll('[data-key-ctrl]')) el.textContent = '⌘';
}

export function initNewSession() {
  const d = dialog();
  if (!d) return;
  macKeys();
  document.addEventListener('keydown', (e) => {
    if (!isNewSessionKey(e) || e.defaultPrevented) return;
    e.preventDefault();
    openNewSession();
  });
  // Keys in the dialog are the dialog's: Esc closes it (natively) and must
  // not also stop a running turn; j, k and / must not move the page behind.
  d.addEventListener('keydown', (e) => {
    if (!isNewSessionKey(e)) e.stopPropagation();
  });
  d.addEventListener('click', onDialogClick);
  d.addEventListener('submit', (e) => {
    const form = /** @type {Element} */ (e.target).closest('[data-new-session-form]');
    if (!form) return;
    e.preventDefault();
    create(form);
  });
  d.addEventListener('input', (e) => {
    if (e.target instanceof HTMLInputElement && e.target.name === 'cwd') showFormError(e.target.form, '');
  });
}
