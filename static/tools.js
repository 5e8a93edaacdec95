// Tool calls in the conversation: each call's card (tool.start), the tail
// of a running command's output (tool.output), the seconds it has run,
// and its result (tool.end). The card and the result are the server's
// rendering (web/message.templ toolCall and toolResult), the same a reload
// shows; the live output, the elapsed time and the state line are this
// module's, and go when the result comes. The card goes in the message
// that made the call (conversation.js); its approval card is approvals.js's.
//
//   [data-testid="tool-call"][data-tool-use-id][data-running|data-awaiting][data-started]
//     [data-testid="tool-live"]  [data-testid="tool-elapsed"]  [data-testid="tool-result"]
//
// Output arrives as JSON and goes in through textContent; the cards' HTML
// comes from the server, already escaped, and is parsed through a
// <template>.

import { el, fragment } from './dom.js';
import { keepBottom } from './scroll.js';
import { startMessage } from './conversation.js';
import { box, messageEl, setToolState, toolEl } from './thread.js';

// --- Tool calls ---------------------------------------------------------------

// rendered is the one element of testid in a server fragment, or null.
function rendered(html, testid) {
  if (typeof html !== 'string' || !html) return null;
  return fragment(html).querySelector(`[data-testid="${testid}"]`);
}

// onToolStart marks a call running, putting its card in first when the
// answer's message.end has not (a tab that joined mid-turn).
export function onToolStart(d) {
  if (!d?.tool_use_id) return;
  let call = toolEl(d.tool_use_id);
  if (!call) {
    call = rendered(d.html, 'tool-call');
    if (!call) return;
    const m = messageEl(d.message) || (d.message ? startMessage(d.message, 'assistant') : null);
    if (!m) return;
    m.append(call);
  }
  if (!call.querySelector('[data-testid="tool-result"]')) {
    setToolState(call, 'running');
    startElapsed(call);
  }
  keepBottom();
}

// --- A command's output while it runs ----------------------------------------

// liveTail is how much of a running command's output its card shows: the
// end, as a terminal would; the whole comes with the result.
const liveTail = 4000;
const liveOutput = new Map(); // tool_use_id → the output's tail so far

export function onToolOutput(d) {
  if (!d?.tool_use_id || typeof d.text !== 'string') return;
  showOutput(d.tool_use_id, (liveOutput.get(d.tool_use_id) || '') + d.text);
}

// showOutput makes text the output shown so far in the card of call id.
function showOutput(id, text) {
  const call = toolEl(id);
  if (!call || call.querySelector('[data-testid="tool-result"]')) return;
  text = text.slice(-liveTail);
  liveOutput.set(id, text);
  let live = call.querySelector('[data-testid="tool-live"]');
  if (!live && !text) return; // nothing printed yet, as a live card shows it
  if (!live) {
    live = el('pre', 'tool-live');
    live.setAttribute('data-testid', 'tool-live');
    call.append(live);
  }
  live.textContent = text;
  live.scrollTop = live.scrollHeight;
  keepBottom();
}

// The elapsed time of running calls, shown in their cards, once a second.
let elapsedTimer = 0;

function tickElapsed() {
  const running = box()?.querySelectorAll('[data-testid="tool-call"][data-started]') || [];
  for (const call of running) {
    let span = call.querySelector('[data-testid="tool-elapsed"]');
    if (!span) {
      span = el('span', 'tool-elapsed');
      span.setAttribute('data-testid', 'tool-elapsed');
      // No space before it: the summary's gap spaces it, and nothing is
      // left behind when it goes, so the card ends as a reload shows it.
      (call.querySelector('summary') || call).append(span);
    }
    span.textContent = `${Math.floor((Date.now() - Number(call.dataset.started)) / 1000)} s`;
  }
  if (running.length === 0) {
    clearInterval(elapsedTimer);
    elapsedTimer = 0;
  }
}

/** initTools starts a session's cards afresh: its page is new, and the
 * last session's clock stops with it (static/swap.js).
 * @param {AbortSignal} signal */
export function initTools(signal) {
  liveOutput.clear();
  signal.addEventListener('abort', () => {
    clearInterval(elapsedTimer);
    elapsedTimer = 0;
  });
}

// startElapsed starts the card's clock, ms ago by the server's count.
function startElapsed(call, ms = 0) {
  call.dataset.started = String(Date.now() - ms);
  if (!elapsedTimer) elapsedTimer = setInterval(tickElapsed, 1000);
}

function endLive(call, id) {
  liveOutput.delete(id);
  call.querySelector('[data-testid="tool-live"]')?.remove();
  call.querySelector('[data-testid="tool-elapsed"]')?.remove();
  delete call.dataset.started;
}

// --- A tab that (re)connects mid-command ----------------------------------------

/**
 * syncRunning brings the cards up to a snapshot's running calls and
 * !commands: each running, its clock at the time the server has counted
 * and its output so far (the server's tail, which replaces what this tab
 * had: the events after the snapshot add to it); a call no longer running
 * stops being shown as running.
 * @param {{tool_use_id?: string, message?: string, html?: string, elapsed_ms?: number, output?: string}[]} list
 */
export function syncRunning(list) {
  const running = new Set(list.map((r) => String(r?.tool_use_id ?? '')));
  for (const call of /** @type {NodeListOf<HTMLElement>} */ (box()?.querySelectorAll('[data-testid="tool-call"][data-started]') || [])) {
    const id = call.dataset.toolUseId || '';
    if (!running.has(id)) {
      endLive(call, id);
      setToolState(call, '');
    }
  }
  for (const r of list) {
    if (!r?.tool_use_id) continue;
    // A call (a !command has neither: its card is its note's, untimed).
    if (r.message || r.html) {
      onToolStart(r); // its card put in if missing, marked running
      const call = toolEl(r.tool_use_id);
      if (call instanceof HTMLElement && call.hasAttribute('data-running')) startElapsed(call, Math.max(0, Number(r.elapsed_ms) || 0));
    }
    showOutput(r.tool_use_id, typeof r.output === 'string' ? r.output : '');
  }
  if (list.length) tickElapsed();
}

export function onToolEnd(d) {
  if (!d?.tool_use_id) return;
  const call = toolEl(d.tool_use_id);
  if (!call) return;
  endLive(call, d.tool_use_id);
  setToolState(call, '');
  if (!call.querySelector('[data-testid="tool-result"]')) {
    const result = rendered(d.html, 'tool-result');
    if (result) call.append(result);
  }
  keepBottom();
}
