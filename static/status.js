// The state of a session's turn, as the composer shows it: the status
// chip, the Stop button (shown while a turn runs), and the page's
// data-turn-running. The chip's words are the server's (web/status.go):
// the page renders it, and every status event and snapshot carries it
// rendered again, with data-running saying whether a turn runs. The tab
// never names a state itself.
//
//   <body data-turn-running="true|false">
//   [data-composer] [data-testid="turn-status"][data-status][data-running]   the chip
//   [data-composer] [data-stop]                                               the Stop button

import { api } from './http.js';
import { fragment } from './dom.js';
import { composer, urls, setWritable } from './composer.js';

const body = document.body;

let running = false;

// turnRunning says whether a turn runs now, as the last event told.
export function turnRunning() {
  return running;
}

/** @returns {HTMLElement | null | undefined} */
function statusChip() {
  return composer?.querySelector('[data-testid="turn-status"]');
}

/** chipOf is the chip in the server's rendering html (a status event's
 * html, a snapshot's status_html), or null.
 * @param {unknown} html
 * @returns {HTMLElement | null} */
function chipOf(html) {
  if (typeof html !== 'string' || !html) return null;
  const el = fragment(html).firstElementChild;
  return el instanceof HTMLElement ? el : null;
}

/** busyIn says whether the chip in html says a turn runs.
 * @param {unknown} html */
export function busyIn(html) {
  return chipOf(html)?.dataset.running === 'true';
}

export function setRunning(on) {
  running = on;
  body.dataset.turnRunning = on ? 'true' : 'false';
  const stop = composer?.querySelector('[data-stop]');
  if (stop) stop.hidden = !on;
}

/** showStatus puts the server's chip in html in place of the page's. The
 * page's element stays (it is a live region: a new one would not be
 * announced); it takes the new one's attributes and words.
 * @param {unknown} html */
export function showStatus(html) {
  const next = chipOf(html);
  if (!next) return;
  const chip = statusChip();
  if (chip) {
    for (const a of [...chip.attributes]) if (!next.hasAttribute(a.name)) chip.removeAttribute(a.name);
    for (const a of next.attributes) if (chip.getAttribute(a.name) !== a.value) chip.setAttribute(a.name, a.value);
    if (chip.textContent !== next.textContent) chip.textContent = next.textContent;
  }
  setRunning(next.dataset.running === 'true');
  const status = next.dataset.status;
  setWritable(status !== 'archived' && status !== 'locked', status);
}

// onTurnStart shows the Stop button at once; the chip follows with the
// status event the server sends as the turn starts.
export function onTurnStart() {
  setRunning(true);
}

// stopTurn asks the server to stop the running turn (or command) and the
// queue; the chip says "Stopping…" when the server says so. It resolves
// to what was taken out of the queue, in the order it was sent (the
// composer puts it back: composer.js putBack).
/** @returns {Promise<{text?: unknown, images?: unknown}[]>} */
export async function stopTurn() {
  const res = await api('POST', urls.stop);
  return Array.isArray(res?.unqueued) ? res.unqueued : [];
}

// initStatus takes the running state from the chip the page was
// rendered with, before any event.
export function initStatus() {
  const chip = statusChip();
  if (chip) setRunning(chip.dataset.running === 'true');
}
