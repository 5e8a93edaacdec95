// Plan mode in the tab: the PLAN badge and the toggle above the composer
// (web/plan.templ), Alt+P in the message box, /plan and /build, and
// the "Build this plan?" card that plan.ready brings once a turn in plan
// mode ends. The card goes in the composer, above the message box, as the
// approvals do: on a phone, in the page's flow it landed under the
// composer pinned to the screen's foot.
//
//   [data-plan-controls][data-url][data-mode]
//     [data-plan-badge] [data-plan-toggle]
//   [data-composer] [data-plan-ready-slot]
//     .plan-ready [data-plan-action="build-now|switch|keep"]

import { api } from './http.js';
import { fragment } from './dom.js';
import { showError } from './alerts.js';
import { input, note } from './composer.js';
import { keepBottom } from './scroll.js';

/** What "Build now" sends (live.BuildPlanText). */
const buildText = 'Build the plan above.';

/** @returns {HTMLElement | null} */
function controls() {
  return document.querySelector('[data-plan-controls]');
}

/** @returns {Element | null} */
function readySlot() {
  return document.querySelector('[data-plan-ready-slot]');
}

/** @returns {string} */
function currentMode() {
  return controls()?.dataset.mode === 'plan' ? 'plan' : 'build';
}

/** setMode shows mode (from the mode event or a snapshot) without asking
 * the server.
 * @param {string | undefined} mode */
export function setMode(mode) {
  const box = controls();
  if (!box || (mode !== 'plan' && mode !== 'build')) return;
  box.dataset.mode = mode;
  const badge = /** @type {HTMLElement | null} */ (box.querySelector('[data-plan-badge]'));
  if (badge) badge.hidden = mode !== 'plan';
  box.querySelector('[data-plan-toggle]')?.setAttribute('aria-pressed', String(mode === 'plan'));
  if (mode === 'build') clearPlanReady();
}

/** @param {{mode?: string} | null} d */
export function onMode(d) {
  setMode(d?.mode);
}

/** onPlanReady shows the "Build this plan?" card plan.ready carries.
 * @param {{html?: string} | null} d */
export function onPlanReady(d) {
  const slot = readySlot();
  if (!slot || typeof d?.html !== 'string' || currentMode() !== 'plan') return;
  slot.replaceChildren(fragment(d.html));
  // The composer grew: the plan's end stays in view above it.
  keepBottom();
}

/** clearPlanReady takes the card away (a new turn, build mode). */
export function clearPlanReady() {
  readySlot()?.replaceChildren();
}

/**
 * switchMode asks the server for mode; text, when given, is sent as the
 * person's message in that mode at once.
 * @param {string} mode
 * @param {string} [text]
 * @returns {Promise<{mode: string, turn?: string}>}
 */
export async function switchMode(mode, text) {
  const url = controls()?.dataset.url;
  if (!url) throw new Error('this page cannot change the mode');
  const res = /** @type {{mode: string, turn?: string}} */ (await api('PUT', url, text ? { mode, text } : { mode }));
  setMode(res?.mode || mode);
  return res;
}

/** /plan [TASK] and /build [TASK]: with a task, it goes as the next
 * message in the new mode.
 * @param {string} arg */
export async function planCommand(arg) {
  await switchMode('plan', arg.trim() || undefined);
  if (!arg.trim()) note('Plan mode: the agent reads and plans, and changes no file. /build switches back.');
}

/** @param {string} [arg] */
export async function buildCommand(arg = '') {
  await switchMode('build', arg.trim() || undefined);
  if (!arg.trim()) note('Build mode: the agent may change files again (asking as the settings say).');
}

function toggle() {
  const next = currentMode() === 'plan' ? 'build' : 'plan';
  switchMode(next).catch((err) => showError(`The mode could not change: ${err.message}`));
}

// The controls work from the page's first paint: one listener on the
// document, since the card comes and goes.
function onPlanClick(e) {
  const t = e.target instanceof Element ? e.target.closest('[data-plan-toggle], [data-plan-action]') : null;
  if (!(t instanceof HTMLElement)) return;
  if (t.hasAttribute('data-plan-toggle')) {
    toggle();
    return;
  }
  const action = t.dataset.planAction;
  clearPlanReady();
  if (action === 'build-now') {
    switchMode('build', buildText).catch((err) => showError(`The plan could not start: ${err.message}`));
  } else if (action === 'switch') {
    switchMode('build')
      .then(() => input?.focus())
      .catch((err) => showError(`The mode could not change: ${err.message}`));
  } else if (action === 'keep') {
    // Still plan mode, said again: the server stops offering the card,
    // so a reload does not bring it back.
    switchMode('plan').catch((err) => showError(`The mode could not change: ${err.message}`));
  }
}

// Alt+P (Option+P on a Mac) in the message box toggles the mode. Not
// Shift+Tab, which a browser uses to move focus back: taking it trapped
// focus in the message box and flipped the mode by habit. e.code, since
// Option+P types a character (π) on a Mac.
function onModeKey(e) {
  if (e.code !== 'KeyP' || !e.altKey || e.shiftKey || e.ctrlKey || e.metaKey) return;
  if (!input || e.target !== input || !controls()) return;
  e.preventDefault();
  toggle();
}

// initPlan makes the plan controls and Alt+P work.
/** @param {AbortSignal} signal the session's (static/swap.js) */
export function initPlan(signal) {
  document.addEventListener('click', onPlanClick, { signal });
  document.addEventListener('keydown', onModeKey, { signal });
}
