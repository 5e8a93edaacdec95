// The Import page: each tool's form starts an import through the API
// (POST /api/import), then the page asks how far it is
// (GET /api/import/{job}) until it ends, moving the progress bar, and
// shows what it made: each new session linked, what could not be read.

import { api } from './http.js';
import { setBusy } from './actions.js';

const POLL_MS = 300;

/** @param {string} id */
function byTestID(id) {
  return /** @type {HTMLElement} */ (document.querySelector(`[data-testid="${id}"]`));
}

/** @param {string} tag @param {string} text @param {Record<string, string>} [attrs] */
function el(tag, text, attrs = {}) {
  const e = document.createElement(tag);
  e.textContent = text;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

/** @param {number} n @param {string} noun */
function count(n, noun) {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** showProgress moves the bar and the count.
 * @param {{done: number, total: number}} p */
function showProgress(p) {
  const bar = /** @type {HTMLProgressElement} */ (byTestID('import-progress'));
  bar.max = Math.max(p.total, 1);
  bar.value = p.done;
  byTestID('import-count').textContent = p.total ? `${p.done} of ${count(p.total, 'session')}` : 'Looking for sessions…';
}

/** @param {string} msg */
function showError(msg) {
  const box = byTestID('import-error');
  box.textContent = msg;
  box.hidden = msg === '';
}

/** showReport lists what the import made and what it could not read.
 * @param {any} rep */
function showReport(rep) {
  const out = byTestID('import-result');
  out.replaceChildren();
  const sum = `${rep.imported} imported, ${rep.already} imported before, ${rep.failed} failed` +
    (rep.not_sessions ? `, ${count(rep.not_sessions, 'file')} not a session` : '');
  out.append(el('p', sum, { 'data-testid': 'import-summary' }));
  const list = el('ul', '', { class: 'import-items', 'aria-label': 'Imported sessions' });
  for (const it of rep.items || []) {
    if (it.outcome === 'already') continue;
    const li = el('li', '', { 'data-testid': 'import-item', 'data-outcome': it.outcome });
    if (it.outcome === 'imported') {
      li.append(el('a', it.title || it.session, { href: `/s/${encodeURIComponent(it.session)}`, 'data-testid': 'import-session-link' }));
      li.append(el('span', ` · ${count(it.messages, 'message')}${it.archived ? ' · archived' : ''}`, { class: 'hint' }));
      const notes = [...(it.skipped_lines ? [`${count(it.skipped_lines, 'damaged line')} skipped`] : []), ...(it.notes || [])];
      if (notes.length) {
        const ul = el('ul', '', { class: 'import-notes' });
        for (const n of notes) ul.append(el('li', n));
        li.append(ul);
      }
    } else {
      li.append(el('code', it.path), el('span', ` — ${it.error}`, { class: 'import-why' }));
    }
    list.append(li);
  }
  for (const p of rep.problems || []) {
    list.append(el('li', '', { 'data-testid': 'import-problem', 'data-outcome': 'problem' }));
    /** @type {HTMLElement} */ (list.lastElementChild).append(el('code', p.path), el('span', ` — ${p.reason}`, { class: 'import-why' }));
  }
  if (list.childElementCount) out.append(list);
}

/** follow asks how far job is until it ends.
 * @param {string} id */
async function follow(id) {
  for (;;) {
    const job = await api('GET', `/api/import/${encodeURIComponent(id)}`);
    showProgress(job.progress);
    if (job.state !== 'running') {
      byTestID('import-status').dataset.state = job.state;
      byTestID('import-heading').textContent = job.state === 'done' ? 'Imported' : 'The import failed';
      if (job.error) showError(job.error);
      if (job.report) showReport(job.report);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** @param {SubmitEvent} e */
async function onSubmit(e) {
  const form = e.target;
  if (!(form instanceof HTMLFormElement) || !form.dataset.tool) return;
  e.preventDefault();
  const paths = String(new FormData(form).get('paths') ?? '').split('\n').map((p) => p.trim()).filter(Boolean);
  const status = byTestID('import-status');
  const buttons = [...document.querySelectorAll('.import-form [type="submit"]')];
  for (const b of buttons) setBusy(b, true);
  status.hidden = false;
  status.scrollIntoView({ block: 'nearest' });
  status.dataset.state = 'running';
  byTestID('import-heading').textContent = 'Importing';
  byTestID('import-result').replaceChildren();
  showError('');
  showProgress({ done: 0, total: 0 });
  try {
    const job = await api('POST', '/api/import', { tool: form.dataset.tool, paths });
    await follow(job.id);
  } catch (err) {
    status.dataset.state = 'failed';
    byTestID('import-heading').textContent = 'The import failed';
    showError(err instanceof Error ? err.message : String(err));
  } finally {
    for (const b of buttons) setBusy(b, false);
  }
}

export function initImport() {
  if (document.body.dataset.page !== 'import') return;
  document.addEventListener('submit', onSubmit);
}
