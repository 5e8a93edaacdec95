// The state of a session's turn, as the composer shows it: the status
// chip, the Stop button (shown while a turn runs), and the page's
// data-turn-running. Stopping a turn lives here too: it is the chip that
// says "Stopping…" until the server's status event says what happened.
//
//   <body data-turn-running="true|false">
//   [data-composer] [data-testid="turn-status"][data-status]   the chip
//   [data-composer] [data-stop]                                 the Stop button

import { api } from './http.js';
import { composer, urls, setWritable } from './composer.js';

const body = document.body;

const statusLabels = {
  idle: 'Idle',
  thinking: 'Thinking…',
  writing: 'Writing…',
  tool: 'Running',
  approval: 'Waiting for approval',
  retrying: 'Retrying',
  archived: 'Archived',
  locked: 'Open in another process',
  stopping: 'Stopping…',
};

// Statuses in which no turn runs; any other one means a turn is running.
export const restingStatuses = new Set(['idle', 'archived', 'locked']);

let running = false;

// turnRunning says whether a turn runs now, as the last event told.
export function turnRunning() {
  return running;
}

function statusChip() {
  return composer?.querySelector('[data-testid="turn-status"]');
}

export function setRunning(on) {
  running = on;
  body.dataset.turnRunning = on ? 'true' : 'false';
  const stop = composer?.querySelector('[data-stop]');
  if (stop) stop.hidden = !on;
}

export function setStatus(status, detail) {
  status = typeof status === 'string' && status ? status : 'idle';
  setRunning(!restingStatuses.has(status));
  const chip = statusChip();
  if (chip) {
    chip.dataset.status = status;
    const label = statusLabels[status] || status;
    chip.textContent = detail ? `${label} · ${detail}` : label;
    // The chip stays one line (style.css cuts it); the whole is a hover away.
    chip.title = detail ? chip.textContent : '';
  }
  setWritable(status !== 'archived' && status !== 'locked', status);
}

// markWriting turns "Thinking" into "Writing" once text streams: thinking
// is only while nothing is written yet.
export function markWriting() {
  if (statusChip()?.dataset.status === 'thinking') setStatus('writing');
}

export function onTurnStart() {
  setRunning(true);
  const chip = statusChip();
  if (chip && restingStatuses.has(chip.dataset.status)) setStatus('thinking');
}

// stopTurn asks the server to stop the running turn and the queue; the
// chip says "Stopping…" meanwhile, and what it said before if the request
// fails. It resolves to what was taken out of the queue, in the order it
// was sent (the composer puts it back: composer.js putBack).
/** @returns {Promise<{text?: unknown, images?: unknown}[]>} */
export async function stopTurn() {
  const chip = statusChip();
  const was = chip && [chip.dataset.status, chip.textContent];
  if (chip) {
    chip.dataset.status = 'stopping';
    chip.textContent = statusLabels.stopping;
  }
  try {
    const res = await api('POST', urls.stop);
    return Array.isArray(res?.unqueued) ? res.unqueued : [];
  } catch (err) {
    if (chip && chip.dataset.status === 'stopping') [chip.dataset.status, chip.textContent] = was;
    throw err;
  }
}
