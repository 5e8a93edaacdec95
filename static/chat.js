// The chat of a session page: the composer (text, images, slash commands)
// and the live turn drawn from the page's event stream. app.js owns the
// stream and calls initChat once it is open for listening.
//
// What this file acts on is marked by web/composer.templ and
// web/session.templ:
//
//   #messages                                the latest thread's messages
//   [data-composer][data-messages-url][data-stop-url][data-retry-url]
//                  [data-approvals-url][data-session-url]
//   [data-testid="session-usage"][data-input][data-output]…, [data-testid="session-model"]
//
// Text that arrives as JSON only ever goes in through textContent; HTML
// comes from the server (message.end), already sanitized, and is parsed
// through a <template>.

import { APIError, answer, api, fetchFragment } from './http.js';
import { stream, fragment, showError, setTitle } from './app.js';
import { EV } from './events.js';
import { initPanel } from './panel.js';

const body = document.body;

// --- HTTP ---------------------------------------------------------------------

const isAbort = (err) => err instanceof DOMException && err.name === 'AbortError';

// --- Small helpers ------------------------------------------------------------

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

function button(text, className) {
  const b = el('button', className, text);
  b.type = 'button';
  return b;
}

const byTestID = (root, id) => root.querySelectorAll(`[data-testid="${id}"]`);

function isTyping(t) {
  return t instanceof HTMLElement && (t.isContentEditable || t.matches('input, textarea, select'));
}

function parseData(e) {
  try {
    return JSON.parse(e.data);
  } catch {
    return null;
  }
}

// --- Usage and cost -----------------------------------------------------------

const count = new Intl.NumberFormat('en-US');

// usageText matches web.UsageView.Text: "in 1,234 · out 56 · cache 1,000".
function usageText(u) {
  const read = u.cache_read_input_tokens || 0;
  const write = u.cache_creation_input_tokens || 0;
  const parts = [`in ${count.format(u.input_tokens || 0)}`, `out ${count.format(u.output_tokens || 0)}`];
  if (read || write) parts.push(`cache ${count.format(read)}`);
  if (write) parts.push(`cache write ${count.format(write)}`);
  return parts.join(' · ');
}

// prices are list prices in US dollars per million tokens: input, output,
// cache read, cache write. Only an estimate: providers change prices and a
// local or proxied model may cost nothing. First match wins; a model not
// here gets tokens only.
const prices = [
  [/claude-opus-4-[5-9]/, 5, 25, 0.5, 6.25],
  [/opus/, 15, 75, 1.5, 18.75],
  [/sonnet/, 3, 15, 0.3, 3.75],
  [/haiku-4/, 1, 5, 0.1, 1.25],
  [/haiku/, 0.8, 4, 0.08, 1],
  [/gpt-4\.1-mini/, 0.4, 1.6, 0.1, 0],
  [/gpt-4\.1/, 2, 8, 0.5, 0],
  [/gpt-4o-mini/, 0.15, 0.6, 0.075, 0],
  [/gpt-4o/, 2.5, 10, 1.25, 0],
];

function estimateCost(model, u) {
  const row = prices.find(([re]) => re.test(model || ''));
  if (!row) return null;
  const [, inp, out, read, write] = row;
  return (
    ((u.input_tokens || 0) * inp +
      (u.output_tokens || 0) * out +
      (u.cache_read_input_tokens || 0) * read +
      (u.cache_creation_input_tokens || 0) * write) /
    1e6
  );
}

function costText(cost) {
  return cost < 0.01 ? '< $0.01' : `≈ $${cost.toFixed(2)}`;
}

const costNote = 'Estimated from list prices for the model family; your bill may differ.';

// usageLine fills box with the usage and, when the model's family is known,
// an estimated cost.
function usageLine(box, u) {
  box.replaceChildren(usageText(u));
  const cost = estimateCost(currentModel(), u);
  if (!cost) return; // unknown family, or nothing used yet
  const c = el('span', 'cost', ` · ${costText(cost)}`);
  c.title = costNote;
  box.append(c);
}

function sessionUsageEl() {
  return document.querySelector('[data-testid="session-usage"]');
}

function setSessionUsage(u) {
  const box = sessionUsageEl();
  if (!box) return;
  box.dataset.input = u.input_tokens || 0;
  box.dataset.output = u.output_tokens || 0;
  box.dataset.cacheRead = u.cache_read_input_tokens || 0;
  box.dataset.cacheWrite = u.cache_creation_input_tokens || 0;
  usageLine(box, u);
  if (box.querySelector('.cost')) box.append(el('span', 'estimate', ' (estimate)'));
}

function renderSessionUsage() {
  const box = sessionUsageEl();
  if (!box) return;
  const n = (k) => Number(box.dataset[k]) || 0;
  setSessionUsage({
    input_tokens: n('input'),
    output_tokens: n('output'),
    cache_read_input_tokens: n('cacheRead'),
    cache_creation_input_tokens: n('cacheWrite'),
  });
}

// --- Model --------------------------------------------------------------------

function modelEl() {
  return document.querySelector('[data-testid="session-model"]');
}

function currentModel() {
  return modelEl()?.dataset.model || '';
}

function setModel(model) {
  const dd = modelEl();
  if (!dd || typeof model !== 'string' || model === dd.dataset.model) return;
  dd.dataset.model = model;
  dd.textContent = model || 'default';
  renderSessionUsage();
}

// --- Scrolling ----------------------------------------------------------------
// The page scrolls as a whole. While the reader is at the bottom, new text
// keeps them there; once they scroll up, nothing moves under them.

let stick = true;

function nearBottom() {
  const s = document.scrollingElement;
  return s.scrollHeight - s.scrollTop - s.clientHeight < 80;
}

function keepBottom() {
  if (stick) window.scrollTo(0, document.scrollingElement.scrollHeight);
}

function initScroll() {
  window.addEventListener('scroll', () => {
    stick = nearBottom();
  }, { passive: true });
  // Images load after the text that holds them.
  box()?.addEventListener('load', keepBottom, true);
  if (!location.hash && document.getElementById('composer')) {
    window.scrollTo(0, document.scrollingElement.scrollHeight);
  }
}

// --- Turn state ---------------------------------------------------------------

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
const restingStatuses = new Set(['idle', 'archived', 'locked']);

let running = false;

function setRunning(on) {
  running = on;
  body.dataset.turnRunning = on ? 'true' : 'false';
  const stop = composer?.querySelector('[data-stop]');
  if (stop) stop.hidden = !on;
}

function setStatus(status, detail) {
  status = typeof status === 'string' && status ? status : 'idle';
  setRunning(!restingStatuses.has(status));
  const chip = composer?.querySelector('[data-testid="turn-status"]');
  if (chip) {
    chip.dataset.status = status;
    const label = statusLabels[status] || status;
    chip.textContent = detail ? `${label} · ${detail}` : label;
    // The chip stays one line (style.css cuts it); the whole is a hover away.
    chip.title = detail ? chip.textContent : '';
  }
  setWritable(status !== 'archived' && status !== 'locked', status);
}

// --- The conversation ---------------------------------------------------------

function box() {
  return document.getElementById('messages');
}

function messageEl(id) {
  if (!id) return null;
  return box()?.querySelector(`[data-testid="message"][data-message-id="${CSS.escape(id)}"]`) || null;
}

function toolEl(id) {
  if (!id) return null;
  return box()?.querySelector(`[data-testid="tool-call"][data-tool-use-id="${CSS.escape(id)}"]`) || null;
}

// place puts a new element at the end of the conversation.
function place(node) {
  const b = box();
  if (!b) return;
  b.querySelector(':scope > .empty')?.remove();
  b.append(node);
}

// startMessage is the element a streamed message grows in, made once.
function startMessage(id, role) {
  const found = messageEl(id);
  if (found) return found;
  const m = el('article', `message ${role === 'user' ? 'user' : 'assistant'} streaming`);
  m.setAttribute('data-testid', 'message');
  m.dataset.messageId = id;
  m.dataset.role = role || 'assistant';
  m.dataset.streaming = '';
  m.setAttribute('aria-busy', 'true');
  const who = role === 'user' ? 'You' : 'Agent';
  m.setAttribute('aria-label', who);
  const head = el('header', 'message-head');
  head.append(el('span', 'who', who));
  m.append(head);
  place(m);
  return m;
}

// textNode is the text node a message's next delta goes into: the last
// one, unless a tool call came after it.
function textNode(m) {
  const last = m.lastElementChild;
  if (last?.classList.contains('streaming-text')) {
    if (!last.firstChild) last.append(document.createTextNode(''));
    return last.firstChild;
  }
  const p = el('p', 'plain streaming-text');
  const t = document.createTextNode('');
  p.append(t);
  m.append(p);
  return t;
}

function streamedText(m) {
  return [...m.querySelectorAll(':scope > .streaming-text')].map((p) => p.textContent).join('');
}

// endStreaming marks what is left streaming as ended when no message.end
// will come for it; its text stays.
function endStreaming(m) {
  delete m.dataset.streaming;
  m.removeAttribute('aria-busy');
  m.classList.remove('streaming');
  for (const t of m.querySelectorAll('[data-testid="tool-call"][data-running]')) setToolState(t, '');
}

function endAllStreaming() {
  for (const m of box()?.querySelectorAll('[data-testid="message"][data-streaming]') || []) endStreaming(m);
}

// endTurn clears what only a running turn has: streaming messages, calls
// marked running or waiting, approval cards.
function endTurn() {
  settle();
  syncApprovals([]);
  setStatus('idle');
}

function settle() {
  endAllStreaming();
  for (const t of box()?.querySelectorAll('[data-testid="tool-call"]:is([data-running], [data-awaiting])') || []) {
    setToolState(t, '');
  }
}

// Deltas: the first one after a quiet spell goes into the page at once;
// those that arrive before the next frame are merged and written then, so
// a fast stream costs one DOM write per frame. A hidden tab gets no frames:
// its text waits in pending, and any other event writes it first.
const pending = new Map();
let frame = 0;

function appendText(id, text) {
  if (!text) return;
  const m = messageEl(id);
  if (m && !('streaming' in m.dataset)) return; // it has ended: a late delta
  textNode(m || startMessage(id, 'assistant')).appendData(text);
}

function onDelta(d) {
  if (!d || typeof d.text !== 'string') return;
  // "Thinking" only while nothing is written yet; text streaming is writing.
  const chip = composer?.querySelector('[data-testid="turn-status"]');
  if (chip?.dataset.status === 'thinking') setStatus('writing');
  if (frame) {
    pending.set(d.message, (pending.get(d.message) || '') + d.text);
    return;
  }
  appendText(d.message, d.text);
  keepBottom();
  frame = requestAnimationFrame(flushDeltas);
}

function flushDeltas() {
  if (frame) cancelAnimationFrame(frame);
  frame = 0;
  if (pending.size === 0) return;
  for (const [id, text] of pending) appendText(id, text);
  pending.clear();
  keepBottom();
}

// onMessageDiscard drops an in-progress message the server will not keep:
// a response cut by a transient failure that is about to be retried, or
// one stopped before it said anything.
function onMessageDiscard(d) {
  const m = d?.message && messageEl(d.message);
  if (m && 'streaming' in m.dataset) m.remove();
}

function onMessageStart(d) {
  if (d?.message) startMessage(d.message, d.role);
  keepBottom();
}

// --- Tool calls ---------------------------------------------------------------

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

function inputText(input) {
  if (input === undefined || input === null) return '';
  if (typeof input === 'string') return input;
  return JSON.stringify(input, null, 2);
}

function setToolState(call, state) {
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

function onToolStart(d) {
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

function onToolOutput(d) {
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

function onToolEnd(d) {
  if (!d?.tool_use_id) return;
  removeApproval(d.tool_use_id);
  const call = toolEl(d.tool_use_id);
  if (!call) return;
  endLive(call, d.tool_use_id);
  setToolState(call, '');
  if (!call.querySelector('[data-testid="tool-result"]')) call.append(newResult(d));
  keepBottom();
}

// --- Finished messages --------------------------------------------------------

// adoptToolState moves what the live element knew about its calls (a
// result from tool.end, a running or waiting call) into the server's
// rendering, which has only what the document held when it was rendered.
function adoptToolState(old, next) {
  if (!old) return;
  for (const call of next.querySelectorAll('[data-testid="tool-call"]')) {
    const live = old.querySelector(`[data-testid="tool-call"][data-tool-use-id="${CSS.escape(call.dataset.toolUseId || '')}"]`);
    if (!live) continue;
    const result = live.querySelector('[data-testid="tool-result"]');
    if (result && !call.querySelector('[data-testid="tool-result"]')) call.append(result);
    else if (!result && 'awaiting' in live.dataset) setToolState(call, 'approval');
    else if (!result && 'running' in live.dataset) setToolState(call, 'running');
  }
}

// foldResults shows each result beside its call when the call is on the
// page, as the page does on reload; it reports whether the message has
// anything left to show.
function foldResults(next) {
  for (const r of next.querySelectorAll(':scope > [data-testid="tool-result"]')) {
    const call = toolEl(r.dataset.toolUseId);
    if (!call) continue;
    setToolState(call, '');
    const had = call.querySelector('[data-testid="tool-result"]');
    if (had) had.replaceWith(r);
    else call.append(r);
  }
  return next.querySelector(':scope > :not(.message-head)') !== null;
}

function onMessageEnd(d) {
  if (!d?.message) return;
  pending.delete(d.message);
  const old = messageEl(d.message);
  const frag = fragment(typeof d.html === 'string' ? d.html : '');
  // An answer a retry replaced comes again, folded as a reload shows it.
  const folded = frag.querySelector('[data-testid="replaced-answer"]');
  if (folded) {
    (old?.closest('[data-testid="replaced-answer"]') || old)?.replaceWith(folded);
    return;
  }
  const next = frag.querySelector('[data-testid="message"]');
  if (!next) {
    if (old) endStreaming(old);
    return;
  }
  adoptToolState(old, next);
  if (!foldResults(next)) {
    old?.remove();
    return;
  }
  if (old) old.replaceWith(next);
  else place(next);
  keepBottom();
}

// --- Turns --------------------------------------------------------------------

function turnLine(className, testid, turn) {
  const sel = `[data-testid="${testid}"][data-turn="${CSS.escape(turn || '')}"]`;
  let line = turn ? box()?.querySelector(sel) : null;
  if (line) return line;
  line = el('p', className);
  line.setAttribute('data-testid', testid);
  line.dataset.turn = turn || '';
  place(line);
  return line;
}

function onTurnStart() {
  setRunning(true);
  const chip = composer?.querySelector('[data-testid="turn-status"]');
  if (chip && restingStatuses.has(chip.dataset.status)) setStatus('thinking');
}

function onTurnEnd(d) {
  endTurn();
  if (d?.usage) {
    const line = turnLine('turn-usage', 'turn-usage', d.turn);
    line.title = 'Tokens this turn used';
    usageLine(line, d.usage);
  }
  if (d?.session_usage) setSessionUsage(d.session_usage);
  keepBottom();
}

function onTurnError(d) {
  endTurn();
  // A failed turn's error is saved with its answer, which came just
  // before (message.end) and shows it, after a reload too: no second line.
  const last = [...(box()?.querySelectorAll(':scope > [data-testid="message"]') || [])].pop();
  if (d?.turn && last?.querySelector('[data-testid="message-error"]')) {
    keepBottom();
    return;
  }
  const line = turnLine('turn-error', 'turn-error', d?.turn);
  line.setAttribute('role', 'alert');
  const msg = typeof d?.error === 'string' && d.error ? d.error : 'unknown error';
  line.replaceChildren(el('strong', '', 'The turn failed: '), msg);
  keepBottom();
}

// --- Approvals ----------------------------------------------------------------

function approvalsBox() {
  return composer?.querySelector('[data-approvals]');
}

function approvalEl(id) {
  return approvalsBox()?.querySelector(`[data-testid="approval"][data-tool-use-id="${CSS.escape(id)}"]`) || null;
}

function removeApproval(id) {
  approvalEl(id)?.remove();
}

// diffFold is how many lines of a diff show before "Show all" (web.DiffFold).
const diffFold = 40;

// diffKind is a diff line's class, as web.NewDiffView decides it: the file
// header is what comes before the first hunk, so a removed line that began
// with "--" is still a removed line.
function diffKind(line, inHunks) {
  if (line.startsWith('@@')) return 'hunk';
  if (!inHunks) return 'file';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  if (line.startsWith('\\')) return 'note';
  return 'context';
}

// diffView draws a unified diff as web/diff.templ does: each line marked,
// a long diff folded after diffFold lines behind a "Show all" button.
function diffView(diff) {
  const box = el('div', 'diff-box');
  box.setAttribute('data-testid', 'diff');
  const pre = el('pre', 'diff');
  const lines = diff.replace(/\n$/, '').split('\n');
  let inHunks = false;
  let rest = null;
  lines.forEach((line, i) => {
    const kind = diffKind(line, inHunks);
    if (kind === 'hunk') inHunks = true;
    if (i === diffFold) {
      rest = el('span', 'diff-rest');
      rest.dataset.diffRest = '';
      rest.hidden = true;
      pre.append(rest);
    }
    (rest || pre).append(el('span', `line ${kind}`, `${line}\n`));
  });
  box.append(pre);
  if (rest) {
    const label = `Show all ${lines.length} lines (${lines.length - diffFold} more)`;
    const b = button(label, 'diff-toggle');
    b.dataset.action = 'diff-toggle';
    b.dataset.showAll = label;
    b.setAttribute('data-testid', 'diff-toggle');
    b.setAttribute('aria-expanded', 'false');
    box.append(b);
  }
  return box;
}

// toggleDiff folds and unfolds a long diff, on the page or in an approval.
function toggleDiff(e) {
  const b = e.target.closest('[data-action="diff-toggle"]');
  const rest = b?.closest('[data-testid="diff"]')?.querySelector('[data-diff-rest]');
  if (!rest) return;
  rest.hidden = !rest.hidden;
  b.setAttribute('aria-expanded', String(!rest.hidden));
  b.textContent = rest.hidden ? b.dataset.showAll : 'Show fewer lines';
  if (rest.hidden) b.closest('[data-testid="diff"]').scrollIntoView({ block: 'nearest' });
}

const decisions = [
  ['once', 'Allow once', 'primary'],
  ['session', 'Allow for this session', ''],
  ['deny', 'Deny', 'danger'],
];

function approvalCard(a) {
  const card = el('section', 'approval');
  card.setAttribute('data-testid', 'approval');
  card.dataset.toolUseId = a.tool_use_id;
  card.dataset.tool = a.name || '';
  card.setAttribute('aria-label', `Approve ${a.name || 'a tool'}?`);
  const title = el('p', 'approval-title');
  title.append(el('strong', '', 'Approval needed: '), el('code', 'tool-name', a.name || 'tool'));
  card.append(title);
  const input = a.input && typeof a.input === 'object' ? a.input : {};
  if (typeof a.diff === 'string' && a.diff) {
    if (typeof input.path === 'string') card.append(el('p', 'approval-path', input.path));
    card.append(diffView(a.diff));
  } else if (typeof input.command === 'string') {
    card.append(el('pre', 'approval-command', input.command));
  } else {
    card.append(el('pre', 'approval-command', inputText(a.input)));
  }
  const actions = el('div', 'approval-actions');
  const edits = typeof a.diff === 'string' && a.diff !== '';
  for (const [decision, label, kind] of decisions) {
    // "For this session" of one file tool allows both (live/files.go).
    const b = button(edits && decision === 'session' ? 'Allow file changes for this session' : label, kind);
    b.dataset.decision = decision;
    b.addEventListener('click', () => decide(card, decision));
    actions.append(b);
  }
  card.append(actions);
  return card;
}

async function decide(card, decision) {
  const buttons = card.querySelectorAll('button');
  for (const b of buttons) b.disabled = true;
  card.setAttribute('aria-busy', 'true');
  try {
    await api('POST', urls.approvals + encodeURIComponent(card.dataset.toolUseId), { decision });
    const hadFocus = card.contains(document.activeElement);
    card.remove();
    if (hadFocus) (approvalsBox()?.querySelector('button') || input)?.focus();
  } catch (err) {
    for (const b of buttons) b.disabled = false;
    card.removeAttribute('aria-busy');
    showError(`Could not send the decision: ${err.message}`);
  }
}

function addApproval(a) {
  if (!a?.tool_use_id || !approvalsBox()) return;
  const call = toolEl(a.tool_use_id);
  if (call && !call.querySelector('[data-testid="tool-result"]')) setToolState(call, 'approval');
  if (approvalEl(a.tool_use_id)) return;
  const card = approvalCard(a);
  approvalsBox().append(card);
  // The first button takes the keyboard, unless the person is in the middle
  // of typing a message: their next Enter must not approve a command.
  const focused = document.activeElement;
  const busyTyping = focused === input ? input.value.trim() !== '' : isTyping(focused);
  if (!busyTyping && !approvalsBox().contains(focused)) card.querySelector('button')?.focus({ preventScroll: true });
  keepBottom();
}

function syncApprovals(list) {
  const want = new Set((list || []).map((a) => a?.tool_use_id).filter(Boolean));
  for (const card of approvalsBox()?.querySelectorAll('[data-testid="approval"]') || []) {
    if (!want.has(card.dataset.toolUseId)) card.remove();
  }
  for (const a of list || []) addApproval(a);
}

// --- Queued messages ----------------------------------------------------------

function renderQueued(list) {
  const ol = composer?.querySelector('[data-queued-list]');
  if (!ol) return;
  ol.replaceChildren();
  for (const q of list || []) addQueued(q);
  ol.hidden = ol.children.length === 0;
}

function addQueued(q) {
  const ol = composer?.querySelector('[data-queued-list]');
  if (!ol || !q) return;
  const id = String(q.id ?? '');
  if (id && ol.querySelector(`[data-queued-id="${CSS.escape(id)}"]`)) return;
  const li = el('li', 'queued');
  li.setAttribute('data-testid', 'queued');
  li.dataset.queuedId = id;
  li.append(el('span', 'queued-label', 'Queued'), el('span', 'queued-text', typeof q.text === 'string' ? q.text : ''));
  ol.append(li);
  ol.hidden = false;
}

// --- Snapshot -----------------------------------------------------------------

// applyPartial brings the message being written up to the snapshot's text
// without disturbing a tab that already shows it (every tab gets the
// snapshot another tab's connect triggers).
function applyPartial(p) {
  if (!p?.message) return;
  const text = typeof p.text === 'string' ? p.text : '';
  const m = messageEl(p.message);
  if (m && !('streaming' in m.dataset)) return; // already finished here
  if (!m) {
    appendText(p.message, text);
    startMessage(p.message, 'assistant');
    return;
  }
  const have = streamedText(m);
  if (have.startsWith(text)) return;
  if (text.startsWith(have)) {
    appendText(p.message, text.slice(have.length));
    return;
  }
  for (const t of m.querySelectorAll(':scope > .streaming-text')) t.remove();
  m.querySelector(':scope > .message-head').after(el('p', 'plain streaming-text', text));
}

function setProviderHelp(text) {
  const box = composer?.querySelector('[data-testid="provider-help"]');
  if (!box) return;
  box.hidden = !text;
  box.querySelector('[data-provider-help-text]').textContent = text || '';
}

function setLockedBy(lock) {
  if (!lock) return;
  let text = `This session is open in process ${lock.pid}`;
  text += lock.url ? ` (${lock.url}); continue there.` : '; continue there.';
  note(text, true);
}

// resync merges the document's latest messages into the page after the
// stream was down: nothing is replayed, so messages that ended meanwhile
// would be missing. Messages already shown stay; streamed ones the
// document now holds are replaced by their rendering.
async function resync(snap) {
  const b = box();
  const thread = b?.closest('[data-thread]')?.dataset.thread;
  if (!b || thread === undefined) return;
  let frag;
  try {
    const url = `/s/${encodeURIComponent(body.dataset.sessionId)}/messages?thread=${encodeURIComponent(thread)}&before=-1`;
    frag = await fetchFragment(url);
  } catch {
    return;
  }
  let prev = null;
  for (const m of [...frag.children].filter((n) => n.matches('[data-testid="message"]'))) {
    const have = messageEl(m.dataset.messageId);
    if (have) {
      if ('streaming' in have.dataset) have.replaceWith(m);
      prev = m.isConnected ? m : have;
      continue;
    }
    if (!foldResults(m)) continue;
    if (prev) prev.after(m);
    else {
      const first = b.querySelector('[data-testid="message"][data-streaming]');
      if (first) first.before(m);
      else place(m);
    }
    prev = m;
  }
  // A streamed message the document lacks and the snapshot does not carry
  // on was dropped by the server (a retry starts over).
  for (const m of b.querySelectorAll('[data-testid="message"][data-streaming]')) {
    if (m.dataset.messageId !== snap.partial?.message) m.remove();
  }
}

let snapshots = 0;
let reconnected = false;

async function onSnapshot(d) {
  if (!d) return;
  const first = snapshots++ === 0;
  const busy = !restingStatuses.has(d.status || 'idle');
  // The page was rendered before the stream opened; a turn running in
  // between may have finished messages this page never saw.
  if (reconnected || (first && busy)) await resync(d);
  reconnected = false;
  setStatus(d.status, d.detail);
  if (typeof d.model === 'string') setModel(d.model);
  if (d.partial) applyPartial(d.partial);
  else if (!busy) settle();
  syncApprovals(Array.isArray(d.approvals) ? d.approvals : []);
  renderQueued(Array.isArray(d.queued) ? d.queued : []);
  setProviderHelp(typeof d.provider_help === 'string' ? d.provider_help : '');
  setLockedBy(d.locked_by);
  keepBottom();
}

// --- Event dispatch -----------------------------------------------------------

const handlers = {
  [EV.snapshot]: onSnapshot,
  [EV.status]: (d) => setStatus(d?.status, d?.detail),
  [EV.turnStart]: onTurnStart,
  [EV.messageStart]: onMessageStart,
  [EV.textDelta]: onDelta,
  [EV.toolStart]: onToolStart,
  [EV.toolApproval]: addApproval,
  [EV.toolOutput]: onToolOutput,
  [EV.toolEnd]: onToolEnd,
  [EV.messageEnd]: onMessageEnd,
  [EV.messageDiscard]: onMessageDiscard,
  [EV.turnEnd]: onTurnEnd,
  [EV.turnError]: onTurnError,
  [EV.queued]: (d) => renderQueued(Array.isArray(d?.queued) ? d.queued : []),
};

// Events are handled one at a time, in order: a snapshot that waits for a
// resync holds back the events behind it.
const backlog = [];
let draining = false;

async function drain() {
  if (draining) return;
  draining = true;
  try {
    while (backlog.length) {
      const [name, data] = backlog.shift();
      if (name !== EV.textDelta) flushDeltas();
      try {
        await handlers[name](data);
      } catch (err) {
        console.error(`myco: ${name} event`, err);
      }
    }
  } finally {
    draining = false;
  }
}

function listen(es) {
  for (const name of Object.keys(handlers)) {
    es.addEventListener(name, (e) => {
      backlog.push([name, parseData(e)]);
      drain();
    });
  }
  es.addEventListener('error', () => {
    reconnected = true;
    const s = composer?.querySelector('[data-stream-state]');
    if (!s) return;
    // EventSource retries by itself unless the server refused the stream.
    s.textContent = es.readyState === EventSource.CLOSED ? 'Disconnected: reload the page' : 'Reconnecting…';
    s.hidden = false;
  });
  es.addEventListener('open', () => {
    const s = composer?.querySelector('[data-stream-state]');
    if (s) s.hidden = true;
  });
}

// --- Composer -----------------------------------------------------------------

let composer = null; // [data-composer]
let input = null; // the textarea
let urls = {};

function note(text, persistent = false) {
  const n = composer?.querySelector('[data-composer-note]');
  if (!n) return;
  n.textContent = text;
  clearTimeout(note.timer);
  if (text && !persistent) note.timer = setTimeout(() => { n.textContent = ''; }, 6000);
}

let writable = true;

function setWritable(on, status) {
  if (!composer || on === writable) return;
  writable = on;
  const form = composer.querySelector('[data-composer-form]');
  for (const c of form.querySelectorAll('textarea, button, input')) c.disabled = !on;
  form.classList.toggle('disabled', !on);
  if (!on && status === 'archived') note('This session was archived; reload the page to see it read-only.', true);
}

// Drafts: typed text and attached images survive a reload of the tab.
const draftKey = () => `myco.draft.${body.dataset.sessionId}`;

function saveDraft() {
  try {
    const images = attachments.filter((a) => a.sha).map((a) => ({ sha: a.sha, name: a.name }));
    if (!input.value && images.length === 0) sessionStorage.removeItem(draftKey());
    else sessionStorage.setItem(draftKey(), JSON.stringify({ text: input.value, images }));
  } catch {
    // storage may be off or full: the draft just isn't kept
  }
}

function restoreDraft() {
  let d = null;
  try {
    d = JSON.parse(sessionStorage.getItem(draftKey()) || 'null');
  } catch {
    return;
  }
  if (!d) return;
  if (typeof d.text === 'string') input.value = d.text;
  for (const img of Array.isArray(d.images) ? d.images : []) {
    if (typeof img?.sha === 'string' && /^[0-9a-f]{64}$/.test(img.sha)) addUploaded(img.sha, img.name || 'image');
  }
}

// Without CSS field-sizing, the textarea is grown by hand; the stylesheet
// caps it at 40% of the viewport, where it starts to scroll.
const fieldSizing = CSS.supports('field-sizing', 'content');

function autosize() {
  if (fieldSizing) return;
  input.style.height = 'auto';
  input.style.height = `${input.scrollHeight + 2}px`;
}

function clearComposer() {
  clearSent(input.value, [...attachments]);
}

// clearSent empties the composer of what was sent: text typed, or images
// attached, while the request was on its way stay for the next message.
function clearSent(text, sent) {
  if (input.value === text) input.value = '';
  for (const a of sent) {
    const i = attachments.indexOf(a);
    if (i >= 0) attachments.splice(i, 1);
    a.el.remove();
  }
  autosize();
  hideCommands();
  saveDraft();
}

// --- Images -------------------------------------------------------------------

const imageTypes = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const attachments = []; // {name, sha, state, el, ctl, done}

function attachmentEl(a) {
  const li = el('li', 'attachment');
  li.setAttribute('data-testid', 'attachment');
  li.dataset.state = a.state;
  li.title = a.name;
  const img = document.createElement('img');
  img.alt = a.name;
  img.decoding = 'async';
  const state = el('span', 'attachment-state', a.state === 'uploading' ? 'Uploading…' : '');
  const remove = button('×', 'attachment-remove');
  remove.setAttribute('aria-label', `Remove ${a.name}`);
  remove.addEventListener('click', () => {
    dropAttachment(a);
    input.focus();
  });
  li.append(img, state, remove);
  return li;
}

function showUploaded(a) {
  a.state = 'done';
  a.el.dataset.state = 'done';
  a.el.dataset.sha = a.sha;
  a.el.querySelector('img').src = `/images/${a.sha}`;
  a.el.querySelector('.attachment-state').textContent = '';
}

function dropAttachment(a) {
  a.ctl?.abort();
  const i = attachments.indexOf(a);
  if (i >= 0) attachments.splice(i, 1);
  a.el.remove();
  saveDraft();
}

function addUploaded(sha, name) {
  if (attachments.some((a) => a.sha === sha)) return;
  const a = { name, sha, state: 'done', done: Promise.resolve(sha) };
  a.el = attachmentEl(a);
  showUploaded(a);
  attachments.push(a);
  composer.querySelector('[data-attachments]').append(a.el);
}

function uploadError(name, err) {
  if (err.status === 413) return `${name} is too large to attach (images up to 20 MiB).`;
  return `${name} could not be attached: ${err.message}`;
}

async function upload(a, file) {
  try {
    const res = await fetch('/api/images', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': file.type, Accept: 'application/json' },
      body: file,
      signal: a.ctl.signal,
    });
    const data = await answer(res);
    if (!data || typeof data.sha256 !== 'string') throw new APIError(res.status, 'the server sent no image ID');
    a.sha = data.sha256;
    if (attachments.some((o) => o !== a && o.sha === a.sha)) {
      dropAttachment(a); // the same image twice is sent once
      return null;
    }
    showUploaded(a);
    saveDraft();
    return a.sha;
  } catch (err) {
    if (isAbort(err)) return null;
    dropAttachment(a);
    showError(uploadError(a.name, err));
    return null;
  }
}

function addFiles(files) {
  for (const file of files) {
    const name = file.name || 'pasted image';
    if (!imageTypes.has(file.type)) {
      showError(`${name} is not an image myco can attach (PNG, JPEG, GIF or WebP).`);
      continue;
    }
    const a = { name, state: 'uploading', ctl: new AbortController() };
    a.el = attachmentEl(a);
    attachments.push(a);
    composer.querySelector('[data-attachments]').append(a.el);
    a.done = upload(a, file);
  }
}

function imageFiles(dataTransfer) {
  return [...(dataTransfer?.files || [])];
}

function onPaste(e) {
  const files = [...(e.clipboardData?.items || [])]
    .filter((i) => i.kind === 'file')
    .map((i) => i.getAsFile())
    .filter(Boolean);
  if (files.length === 0) return;
  // An image copied from a page often comes with its address as text:
  // the image is what was meant.
  e.preventDefault();
  addFiles(files);
}

const hasFiles = (e) => [...(e.dataTransfer?.types || [])].includes('Files');

function initDrop(zone) {
  let depth = 0;
  zone.addEventListener('dragenter', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth++;
    zone.classList.add('dragging');
  });
  zone.addEventListener('dragover', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
  });
  zone.addEventListener('dragleave', () => {
    depth = Math.max(0, depth - 1);
    if (depth === 0) zone.classList.remove('dragging');
  });
  zone.addEventListener('drop', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth = 0;
    zone.classList.remove('dragging');
    if (!input.disabled) addFiles(imageFiles(e.dataTransfer));
    input.focus();
  });
  // A file dropped beside the composer must not make the tab navigate
  // away to it.
  for (const type of ['dragover', 'drop']) {
    document.addEventListener(type, (e) => {
      if (hasFiles(e) && !zone.contains(e.target)) e.preventDefault();
    });
  }
}

// --- Sending ------------------------------------------------------------------

let sending = false;

function setSending(on) {
  sending = on;
  const send = composer.querySelector('[data-testid="send-button"]');
  send.disabled = on || !writable;
  if (on) send.setAttribute('aria-busy', 'true');
  else send.removeAttribute('aria-busy');
}

// queuedAnswer shows a message the server queued at once, whatever shape
// the answer's "queued" takes; the queued event then redraws the list.
function queuedAnswer(res, text) {
  const q = res?.queued;
  if (Array.isArray(q)) renderQueued(q);
  else if (q && typeof q === 'object') addQueued({ id: q.id, text: q.text ?? text });
  else if (typeof q === 'string' || typeof q === 'number') addQueued({ id: q, text });
  else addQueued({ id: `local-${Date.now()}`, text });
}

function lockedText(data) {
  const where = data.url ? ` at ${data.url}` : '';
  return `This session is open in another myco process (pid ${data.pid})${where}. Continue there, or close it there first.`;
}

async function sendMessage(raw, text) {
  setSending(true);
  const sent = [...attachments];
  try {
    if (sent.some((a) => a.state === 'uploading')) note('Waiting for the images to finish uploading…');
    const shas = (await Promise.all(sent.map((a) => a.done))).filter(Boolean);
    const msg = { text, images: shas };
    try {
      await api('POST', urls.messages, msg);
    } catch (err) {
      // A turn is running: the message waits for it rather than being lost.
      if (!(err instanceof APIError) || err.status !== 409 || err.data.pid) throw err;
      const res = await api('POST', urls.messages, { ...msg, queue: true });
      queuedAnswer(res, text);
      note('Queued: it is sent when the running turn ends.');
    }
    clearSent(raw, sent);
    // Whoever sends wants to see the answer come in.
    stick = true;
    keepBottom();
  } catch (err) {
    if (err instanceof APIError && err.status === 409 && err.data.pid) {
      showError(lockedText(err.data), err.data.url);
    } else {
      showError(`Could not send the message: ${err.message}`);
    }
  } finally {
    setSending(false);
  }
}

function submit() {
  if (sending || input.disabled) return;
  const raw = input.value;
  const cmd = parseCommand(raw);
  if (cmd) {
    runCommand(cmd);
    return;
  }
  const text = (raw.startsWith('//') ? raw.slice(1) : raw).trim();
  if (!text && attachments.length === 0) return;
  sendMessage(raw, text);
}

// --- Slash commands -----------------------------------------------------------

// commands are read from the help panel the server renders.
let commands = [];

function readCommands() {
  return [...composer.querySelectorAll('[data-command-help] [data-command]')].map((c) => ({
    name: c.dataset.command,
    args: c.dataset.args || '',
    // "[NAME]": the command also runs without it.
    optional: (c.dataset.args || '').startsWith('['),
    help: c.querySelector('dd')?.textContent || '',
  }));
}

// parseCommand reads "/name arg" from the composer; null when the text is
// a message ("//x" is a message starting with "/x", and so is a path like
// "/etc/hosts …").
function parseCommand(raw) {
  const m = /^\/([a-z]+)(?:\s+([\s\S]*))?$/i.exec(raw.trim());
  if (!m) return null;
  return { name: m[1].toLowerCase(), arg: (m[2] || '').trim() };
}

async function runCommand({ name, arg }) {
  const run = commandActions[name];
  if (!run) {
    showError(`There is no command /${name}. /help lists them; start with // to send a message that begins with /.`);
    return;
  }
  setSending(true);
  try {
    if ((await run(arg)) !== false) clearComposer();
  } catch (err) {
    if (err instanceof APIError && err.status === 409 && err.data.pid) showError(lockedText(err.data), err.data.url);
    else showError(`/${name} failed: ${err.message}`);
  } finally {
    setSending(false);
  }
}

async function stopTurn() {
  const chip = composer?.querySelector('[data-testid="turn-status"]');
  const was = chip && [chip.dataset.status, chip.textContent];
  if (chip) {
    chip.dataset.status = 'stopping';
    chip.textContent = statusLabels.stopping;
  }
  try {
    await api('POST', urls.stop);
  } catch (err) {
    if (chip && chip.dataset.status === 'stopping') [chip.dataset.status, chip.textContent] = was;
    throw err;
  }
}

function openSession(id) {
  location.assign(`/s/${encodeURIComponent(id)}`);
}

async function findSession(prefix) {
  const matches = async (archived) => {
    const q = new URLSearchParams({ q: prefix });
    if (archived) q.set('archived', '1');
    const list = await api('GET', `/api/sessions?${q}`);
    return (Array.isArray(list) ? list : []).filter((s) => typeof s?.id === 'string' && s.id.startsWith(prefix));
  };
  let found = await matches(false);
  if (found.length === 0) found = await matches(true);
  const exact = found.find((s) => s.id === prefix);
  if (exact) return exact.id;
  if (found.length === 1) return found[0].id;
  if (found.length === 0) throw new Error(`no session ID starts with “${prefix}”`);
  throw new Error(`“${prefix}” is ambiguous: ${found.length} sessions start with it; type more of the ID`);
}

async function patchSession(change) {
  return api('PATCH', urls.session, change);
}

async function chooseModel(name) {
  const h = await patchSession({ model: name });
  setModel(typeof h?.model === 'string' ? h.model : name);
  note(`Model: ${currentModel() || 'default'}`);
}

function modelName(m) {
  if (typeof m === 'string') return m;
  return m?.name || m?.id || m?.model || '';
}

async function listModels() {
  const data = await api('GET', '/api/models');
  const panel = composer.querySelector('[data-model-list]');
  const head = el('div', 'panel-head');
  head.append(el('h2', '', 'Models'));
  const close = button('×', 'panel-close');
  close.dataset.closePanel = '';
  close.setAttribute('aria-label', 'Close the list of models');
  head.append(close);
  panel.replaceChildren(head);
  const none = !Array.isArray(data?.models) || data.models.length === 0;
  if (data?.configured === false || (none && typeof data?.help === 'string' && data.help)) {
    panel.append(el('p', 'provider-help-text', data?.help || 'No model provider is configured.'));
  }
  const ul = el('ul', 'models');
  const current = currentModel();
  for (const m of Array.isArray(data?.models) ? data.models : []) {
    const name = modelName(m);
    if (!name) continue;
    const li = el('li');
    const b = button(name, 'model-choice');
    b.dataset.model = name;
    if (name === current || (!current && name === data.default)) b.setAttribute('aria-current', 'true');
    b.addEventListener('click', async () => {
      try {
        await chooseModel(name);
        closePanels();
        input.focus();
      } catch (err) {
        showError(`Could not switch the model: ${err.message}`);
      }
    });
    li.append(b);
    if (name === data.default) li.append(el('span', 'model-default', 'default'));
    ul.append(li);
  }
  if (ul.children.length) panel.append(ul);
  else if (panel.children.length === 1) panel.append(el('p', 'empty', 'No models are listed.'));
  openPanel(panel);
}

const commandActions = {
  stop: () => stopTurn(),
  retry: async () => {
    await api('POST', urls.retry);
  },
  new: async () => {
    const h = await api('POST', '/api/sessions', {});
    if (!h?.id) throw new Error('the server sent no session ID');
    clearComposer();
    openSession(h.id);
  },
  resume: async (arg) => {
    if (!arg) throw new Error('say which session: /resume ID (the start of the ID is enough)');
    const id = await findSession(arg.split(/\s+/)[0]);
    clearComposer();
    openSession(id);
  },
  title: async (arg) => {
    if (!arg) throw new Error('give the new title: /title Some title');
    const h = await patchSession({ title: arg });
    setTitle(typeof h?.title === 'string' ? h.title : arg);
  },
  model: async (arg) => {
    if (arg) await chooseModel(arg);
    else await listModels();
  },
  compact: async () => {
    await api('POST', `${urls.session}/compact`);
  },
  help: () => {
    const panel = composer.querySelector('[data-command-help]');
    if (panel.hidden) openPanel(panel);
    else closePanels();
  },
};

// --- Panels (help, models) ----------------------------------------------------

function openPanel(panel) {
  closePanels();
  panel.hidden = false;
  keepBottom();
}

function closePanels() {
  let closed = false;
  for (const p of composer.querySelectorAll('.composer-panel')) {
    closed ||= !p.hidden;
    p.hidden = true;
  }
  return closed;
}

// --- Autocomplete -------------------------------------------------------------

let listed = []; // commands the open list shows
let active = 0;
let dismissed = ''; // the text for which Esc closed the list

function commandList() {
  return composer.querySelector('#command-list');
}

function hideCommands() {
  const list = commandList();
  if (!list || list.hidden) return;
  list.hidden = true;
  listed = [];
  input.setAttribute('aria-expanded', 'false');
  input.removeAttribute('aria-activedescendant');
}

function updateCommands() {
  const m = /^\/([a-z]*)$/i.exec(input.value);
  if (!m || input.value === dismissed) {
    hideCommands();
    return;
  }
  const word = m[1].toLowerCase();
  listed = commands.filter((c) => c.name.startsWith(word));
  if (listed.length === 0 || (listed.length === 1 && listed[0].name === word && !listed[0].args)) {
    hideCommands();
    return;
  }
  active = 0;
  const list = commandList();
  list.replaceChildren(
    ...listed.map((c, i) => {
      const li = el('li', 'command-option');
      li.id = `command-option-${c.name}`;
      li.setAttribute('role', 'option');
      li.dataset.command = c.name;
      li.append(el('code', '', `/${c.name}${c.args ? ` ${c.args}` : ''}`), el('span', '', c.help));
      li.addEventListener('mousedown', (e) => {
        e.preventDefault(); // keep the focus in the textarea
        active = i;
        acceptCommand(false);
      });
      return li;
    }),
  );
  list.hidden = false;
  input.setAttribute('aria-expanded', 'true');
  markActive();
}

function markActive() {
  const options = commandList().children;
  for (let i = 0; i < options.length; i++) options[i].setAttribute('aria-selected', i === active ? 'true' : 'false');
  const opt = options[active];
  if (opt) {
    input.setAttribute('aria-activedescendant', opt.id);
    opt.scrollIntoView({ block: 'nearest' });
  }
}

// acceptCommand completes the highlighted command; with run, a command
// that takes no argument runs at once.
function acceptCommand(run) {
  const c = listed[active];
  if (!c) return;
  const now = run && (!c.args || c.optional);
  input.value = c.args && !now ? `/${c.name} ` : `/${c.name}`;
  hideCommands();
  saveDraft();
  if (now) submit();
}

// onListKey handles the keys of the open command list; true when it took one.
function onListKey(e) {
  if (commandList().hidden) return false;
  switch (e.key) {
    case 'ArrowDown':
      active = (active + 1) % listed.length;
      markActive();
      return true;
    case 'ArrowUp':
      active = (active - 1 + listed.length) % listed.length;
      markActive();
      return true;
    case 'Tab':
      if (e.shiftKey) return false;
      acceptCommand(false);
      return true;
    case 'Enter': {
      if (e.shiftKey) return false;
      const typed = input.value.slice(1).toLowerCase();
      if (typed === '') return true; // a lone "/" picks nothing
      if (listed.some((c) => c.name === typed && !c.args)) return false; // complete already: send
      acceptCommand(true);
      return true;
    }
    case 'Escape':
      dismissed = input.value;
      hideCommands();
      return true;
  }
  return false;
}

// --- Keyboard -----------------------------------------------------------------

function onInputKey(e) {
  // Keys that confirm an IME composition are the composition's.
  if (e.isComposing || e.keyCode === 229) return;
  if (onListKey(e)) {
    e.preventDefault();
    e.stopPropagation();
    return;
  }
  if (e.key === 'Enter' && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey) {
    e.preventDefault();
    submit();
  }
}

// onEscape: Esc closes an open panel, else stops a running turn, when the
// composer or the page (not another field) has the focus.
function onEscape(e) {
  if (e.key !== 'Escape' || e.defaultPrevented || e.isComposing) return;
  if (closePanels()) {
    e.preventDefault();
    return;
  }
  if (!running || (isTyping(e.target) && e.target !== input)) return;
  e.preventDefault();
  stopTurn().catch((err) => showError(`Could not stop the turn: ${err.message}`));
}

// --- Wiring -------------------------------------------------------------------

function initComposer(root) {
  composer = root;
  input = root.querySelector('[data-testid="composer-input"]');
  urls = {
    messages: root.dataset.messagesUrl,
    stop: root.dataset.stopUrl,
    retry: root.dataset.retryUrl,
    approvals: root.dataset.approvalsUrl,
    session: root.dataset.sessionUrl,
  };
  commands = readCommands();
  restoreDraft();
  autosize();

  const form = root.querySelector('[data-composer-form]');
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    submit();
  });
  input.addEventListener('input', () => {
    if (input.value !== dismissed) dismissed = '';
    autosize();
    updateCommands();
    saveDraft();
  });
  input.addEventListener('keydown', onInputKey);
  input.addEventListener('paste', onPaste);
  input.addEventListener('blur', hideCommands);

  const picker = root.querySelector('[data-testid="image-input"]');
  root.querySelector('[data-testid="image-button"]').addEventListener('click', () => picker.click());
  picker.addEventListener('change', () => {
    addFiles([...picker.files]);
    picker.value = '';
    input.focus();
  });
  initDrop(root.closest('#composer') || root);

  root.querySelector('[data-stop]').addEventListener('click', () => {
    stopTurn().catch((err) => showError(`Could not stop the turn: ${err.message}`));
  });
  root.addEventListener('click', (e) => {
    if (e.target.closest('[data-close-panel]')) {
      closePanels();
      input.focus();
    }
  });
  document.addEventListener('keydown', onEscape);
}

// retryAnswer asks for the last failed or interrupted answer again; the
// answer it replaces comes back folded (message.end) and the new one
// streams in as any turn does.
async function retryAnswer(e) {
  const b = e.target.closest('[data-action="retry"]');
  if (!b || !urls.retry) return;
  b.disabled = true;
  try {
    await api('POST', urls.retry);
  } catch (err) {
    b.disabled = false;
    showError(`Could not retry: ${err.message}`);
  }
}

// initChat wires the session page's chat; app.js calls it after opening
// the page's stream.
export function initChat() {
  if (body.dataset.page !== 'session') return;
  document.addEventListener('click', toggleDiff);
  document.addEventListener('click', retryAnswer);
  setRunning(false);
  const root = document.querySelector('#composer [data-composer]');
  if (root) initComposer(root);
  renderSessionUsage();
  initScroll();
  if (stream) listen(stream);
  initPanel(stream, renderSessionUsage);
  if (root && !location.hash) input.focus({ preventScroll: true });
}
