// Tool calls in the conversation: each call's card (tool.start), the tail
// of a running command's output (tool.output), the seconds it has run,
// and its result (tool.end). The card goes in the message that made the
// call (conversation.js); its approval card is approvals.js's.
//
//   [data-testid="tool-call"][data-tool-use-id][data-running|data-awaiting][data-started]
//     [data-testid="tool-live"]  [data-testid="tool-elapsed"]  [data-testid="tool-result"]
//
// Input and output arrive as JSON and go in through textContent.

import { el } from './dom.js';
import { keepBottom } from './scroll.js';
import { box, messageEl, startMessage } from './conversation.js';

// --- Tool calls ---------------------------------------------------------------

// toolEl is the card of a call on the page, by its tool_use_id.
export function toolEl(id) {
  if (!id) return null;
  return box()?.querySelector(`[data-testid="tool-call"][data-tool-use-id="${CSS.escape(id)}"]`) || null;
}

const previewKeys = ['command', 'path', 'action', 'query', 'url', 'pattern'];

// preview is the one-line hint of an input, as web.inputPreview writes it.
function preview(input) {
  if (!input || typeof input !== 'object') return '';
  for (const k of previewKeys) {
    const v = input[k];
    if (typeof v === 'string' && v.trim()) {
      let s = v.trim();
      const nl = s.indexOf('\n');
      if (nl >= 0) s = `${s.slice(0, nl)} …`;
      return s.length > 80 ? `${s.slice(0, 79)}…` : s;
    }
  }
  return '';
}

export function inputText(input) {
  if (input === undefined || input === null) return '';
  if (typeof input === 'string') return input;
  return JSON.stringify(input, null, 2);
}

// setToolState marks a call running, waiting for approval, or neither
// (''), with the line that says so.
export function setToolState(call, state) {
  call.querySelector(':scope > .tool-state')?.remove();
  delete call.dataset.running;
  delete call.dataset.awaiting;
  if (!state) return;
  call.dataset[state === 'approval' ? 'awaiting' : 'running'] = '';
  const label = state === 'approval' ? 'waiting for your approval' : 'running…';
  call.append(el('p', 'tool-state', label));
}

function newToolCall(d) {
  const call = el('div', 'tool');
  call.setAttribute('data-testid', 'tool-call');
  call.dataset.toolUseId = d.tool_use_id || '';
  call.dataset.tool = d.name || '';
  const details = el('details', 'tool-input');
  const summary = el('summary');
  summary.append(el('span', 'tool-name', d.name || 'tool'));
  const hint = preview(d.input);
  if (hint) summary.append(el('code', 'tool-preview', hint));
  details.append(summary);
  const text = inputText(d.input);
  if (text && text !== '{}') details.append(el('pre', '', text));
  call.append(details);
  return call;
}

export function onToolStart(d) {
  if (!d?.tool_use_id) return;
  let call = toolEl(d.tool_use_id);
  if (!call) {
    call = newToolCall(d);
    (messageEl(d.message) || startMessage(d.message, 'assistant')).append(call);
  }
  if (!call.querySelector('[data-testid="tool-result"]')) {
    setToolState(call, 'running');
    startElapsed(call);
  }
  keepBottom();
}

function newResult(d) {
  const r = el('details', `tool-result${d.is_error ? ' error' : ''}`);
  r.setAttribute('data-testid', 'tool-result');
  r.dataset.toolUseId = d.tool_use_id || '';
  r.dataset.isError = d.is_error ? 'true' : 'false';
  const s = el('summary');
  s.append(el('span', 'label', 'Result'), ' ', el('span', 'status', d.is_error ? 'error' : 'ok'));
  const out = typeof d.output === 'string' ? d.output : inputText(d.output);
  if (!out) s.append(' ', el('span', 'no-output', 'no output'));
  r.append(s);
  if (out) r.append(el('pre', '', out));
  return r;
}

// --- A command's output while it runs ----------------------------------------

// liveTail is how much of a running command's output its card shows: the
// end, as a terminal would; the whole comes with the result.
const liveTail = 4000;
const liveOutput = new Map(); // tool_use_id → the output's tail so far

export function onToolOutput(d) {
  if (!d?.tool_use_id || typeof d.text !== 'string') return;
  const call = toolEl(d.tool_use_id);
  if (!call || call.querySelector('[data-testid="tool-result"]')) return;
  const text = ((liveOutput.get(d.tool_use_id) || '') + d.text).slice(-liveTail);
  liveOutput.set(d.tool_use_id, text);
  let live = call.querySelector('[data-testid="tool-live"]');
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
      (call.querySelector('summary, .tool-head') || call).append(' ', span);
    }
    span.textContent = `${Math.floor((Date.now() - Number(call.dataset.started)) / 1000)} s`;
  }
  if (running.length === 0) {
    clearInterval(elapsedTimer);
    elapsedTimer = 0;
  }
}

function startElapsed(call) {
  call.dataset.started = String(Date.now());
  if (!elapsedTimer) elapsedTimer = setInterval(tickElapsed, 1000);
}

function endLive(call, id) {
  liveOutput.delete(id);
  call.querySelector('[data-testid="tool-live"]')?.remove();
  call.querySelector('[data-testid="tool-elapsed"]')?.remove();
  delete call.dataset.started;
}

export function onToolEnd(d) {
  if (!d?.tool_use_id) return;
  const call = toolEl(d.tool_use_id);
  if (!call) return;
  endLive(call, d.tool_use_id);
  setToolState(call, '');
  if (!call.querySelector('[data-testid="tool-result"]')) call.append(newResult(d));
  keepBottom();
}
