// Sub-agents: the strip in a task call's card that follows the sub-agent
// the call started (its state, a link to its session, Stop), and the
// /subagents card that lists the running ones in this profile. The server
// renders both; this file puts them in place.
//
//   [data-testid="tool-call"][data-tool-use-id] > [data-subagent]   the strip
//   [data-action="stop-subagent"][data-url]                          Stop
//   #messages > [data-testid="subagents-card"]                       /subagents

import { api, fetchFragment } from './http.js';
import { fragment } from './dom.js';
import { toolEl } from './thread.js';
import { showError } from './alerts.js';

// onSubagent puts a subagent event's strip in its call's card, replacing
// the one there (the card of a call this page has not drawn yet gets it
// when tool.start draws the card: the next event or the snapshot).
export function onSubagent(d) {
  const call = toolEl(String(d?.tool_use_id ?? ''));
  if (!call || typeof d.html !== 'string' || !d.html) return;
  const strip = fragment(d.html).firstElementChild;
  if (!strip) return;
  const old = call.querySelector(':scope > [data-subagent]');
  if (old) old.replaceWith(strip);
  else call.querySelector(':scope > details.tool-input')?.after(strip);
}

// syncSubagents draws a snapshot's running sub-agents.
/** @param {any[]} list */
export function syncSubagents(list) {
  for (const d of list) onSubagent(d);
}

/** @param {AbortSignal} signal */
export function initSubagents(signal) {
  document.addEventListener('click', (e) => {
    const stop = /** @type {HTMLElement | null} */ (e.target instanceof Element ? e.target.closest('[data-action="stop-subagent"]') : null);
    if (!stop?.dataset.url) return;
    e.preventDefault();
    stop.setAttribute('disabled', '');
    api('POST', stop.dataset.url).catch((err) => {
      stop.removeAttribute('disabled');
      // Ended in the meantime: the card says so with the next event.
      if (err?.status !== 409) showError(`Could not stop the sub-agent: ${err.message}`);
    });
  }, { signal });
}

// subagentsList is what /subagents shows, as the server renders it.
export async function subagentsList() {
  return fetchFragment('/partials/subagents');
}
