// The Schedules page: add a schedule, enable or disable one, run it now,
// delete it. Each action goes through the API (/api/schedules), then the
// list is fetched again as the server renders it (/partials/schedules);
// while a run runs, the list is fetched every few seconds until it ends.

import { api, fetchFragment } from './http.js';
import { setBusy } from './actions.js';

const POLL_MS = 2000;

/** @type {ReturnType<typeof setTimeout> | undefined} */
let poll;

function list() {
  return /** @type {HTMLElement | null} */ (document.querySelector('[data-testid="schedule-list"]'));
}

/** refresh swaps in the list as the server renders it now. */
export async function refresh() {
  const el = list();
  if (!el) return;
  clearTimeout(poll);
  try {
    const frag = await fetchFragment(el.dataset.partialUrl || '/partials/schedules');
    el.replaceChildren(frag);
  } catch {
    // a failed refresh leaves the list as it was; the next one may do
  }
  if (el.querySelector('[data-running="true"]')) poll = setTimeout(refresh, POLL_MS);
}

/** @param {HTMLElement} el */
function rowOf(el) {
  const row = /** @type {HTMLElement | null} */ (el.closest('[data-schedule-id]'));
  return row?.dataset.scheduleId ? row : null;
}

/** act runs a row's request, says what went wrong, then refreshes.
 * @param {HTMLElement} el @param {(id: string, row: HTMLElement) => Promise<unknown>} request */
async function act(el, request) {
  const row = rowOf(el);
  if (!row) return;
  setBusy(el, true);
  try {
    await request(/** @type {string} */ (row.dataset.scheduleId), row);
  } catch (err) {
    showError(err instanceof Error ? err.message : String(err));
  } finally {
    setBusy(el, false);
  }
  await refresh();
}

/** @param {HTMLElement} el */
export function toggleSchedule(el) {
  return act(el, (id, row) => api('PATCH', `/api/schedules/${encodeURIComponent(id)}`, { enabled: row.dataset.enabled !== 'true' }));
}

/** @param {HTMLElement} el */
export function runSchedule(el) {
  return act(el, (id) => api('POST', `/api/schedules/${encodeURIComponent(id)}/run`));
}

/** @param {HTMLElement} el */
export function askDelete(el) {
  const ctl = el.closest('[data-delete-control]');
  const confirm = /** @type {HTMLElement | null} */ (ctl?.querySelector('[data-delete-confirm]') ?? null);
  if (!confirm) return;
  el.hidden = true;
  confirm.hidden = false;
  /** @type {HTMLElement | null} */ (confirm.querySelector('[data-action="schedule-delete"]'))?.focus();
}

/** @param {HTMLElement} el */
export function cancelDelete(el) {
  const ctl = el.closest('[data-delete-control]');
  const ask = /** @type {HTMLElement | null} */ (ctl?.querySelector('[data-action="schedule-delete-ask"]') ?? null);
  const confirm = /** @type {HTMLElement | null} */ (ctl?.querySelector('[data-delete-confirm]') ?? null);
  if (confirm) confirm.hidden = true;
  if (ask) {
    ask.hidden = false;
    ask.focus();
  }
}

/** @param {HTMLElement} el */
export function deleteSchedule(el) {
  return act(el, (id) => api('DELETE', `/api/schedules/${encodeURIComponent(id)}`));
}

/** @param {string} msg */
function showError(msg) {
  const box = /** @type {HTMLElement | null} */ (document.querySelector('[data-testid="schedule-error"]'));
  if (!box) return;
  box.textContent = msg;
  box.hidden = msg === '';
}

/** @param {SubmitEvent} e */
async function onSubmit(e) {
  const form = e.target;
  if (!(form instanceof HTMLFormElement) || form.dataset.testid !== 'schedule-form') return;
  e.preventDefault();
  const data = new FormData(form);
  /** @type {Record<string, string>} */
  const body = {};
  for (const k of ['name', 'when', 'prompt', 'session', 'deliver_to', 'model', 'missed']) body[k] = String(data.get(k) ?? '').trim();
  const when = /** @type {HTMLInputElement | null} */ (form.elements.namedItem('when'));
  const submit = /** @type {HTMLButtonElement | null} */ (form.querySelector('[type="submit"]'));
  if (submit) setBusy(submit, true);
  try {
    await api('POST', '/api/schedules', body);
    showError('');
    when?.removeAttribute('aria-invalid');
    form.reset();
    await refresh();
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    showError(msg);
    if (when && /\bwhen\b/.test(msg)) {
      when.setAttribute('aria-invalid', 'true');
      when.focus();
    }
  } finally {
    if (submit) setBusy(submit, false);
  }
}

export function initSchedules() {
  if (document.body.dataset.page !== 'schedules') return;
  document.addEventListener('submit', onSubmit);
  if (list()?.querySelector('[data-running="true"]')) poll = setTimeout(refresh, POLL_MS);
}
