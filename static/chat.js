// The chat of a session page: gives the page's events to the modules that
// draw them (through stream.js's one dispatcher, which handles them one at
// a time and in order). page-session.js opens the stream and calls initChat.
//
//   conversation.js  messages, text deltas, finished messages, turn lines
//   tools.js         tool calls, a command's live output, elapsed time
//   subagent.js      the sub-agent strip in a task call's card
//   approvals.js     approval cards (diff.js draws their diffs)
//   status.js        the status chip, the Stop button, stopping
//   composer.js      the message box's state; send.js sends (attachments.js:
//                    images; commands.js: slash commands; queued.js: the queue)
//   usage.js         the model; placing the usage lines the server renders
//   scroll.js        keeping the bottom in view
//   notify.js        telling a hidden tab's person: notifications, title marker
//
// What this file acts on itself:
//
//   <body data-page="session" data-session-id>
//   #composer [data-composer] [data-stream-state]   "Reconnecting…"

import { initMentions, onNote, syncNotes } from './mentions.js';
import { initThinking, onThinking, showPartialThinking } from './thinking.js';
import { beforeEvery, on, stream } from './stream.js';
import { EV } from './events.js';
import { initGoal, onGoal } from './goal.js';
import { initUndo, markUndone } from './undo.js';
import { clearPlanReady, initPlan, onMode, onPlanReady, setMode } from './plan.js';
import { initPanel } from './panel.js';
import { initMCP } from './mcp.js';
import { initNotify } from './notify.js';
import { initAppBadge } from './appbadge.js';
import { initScroll, keepBottom } from './scroll.js';
import { setModel } from './usage.js';
import { busyIn, initStatus, onTurnStart, showStatus } from './status.js';
import {
  applyPartial,
  dropDeltas,
  flushDeltas,
  onBlocks,
  onDelta,
  onMessageDiscard,
  onMessageEnd,
  onMessageStart,
  onTurnEnd,
  onTurnError,
  resync,
  settle,
} from './conversation.js';
import { initTools, onToolEnd, onToolOutput, onToolStart, syncRunning } from './tools.js';
import { initSubagents, onSubagent, syncSubagents } from './subagent.js';
import { addApproval, initApprovals, onApprovalStatus, removeApproval, syncApprovals } from './approvals.js';
import { toggleDiff } from './diff.js';
import { renderQueued } from './queued.js';
import { initSteer, onBtwDelta, onBtwEnd, onBtwStart, onSteerQueue } from './steer.js';
import { composer, input, setLockedBy, setProviderHelp } from './composer.js';
import { initComposer, retryAnswer } from './send.js';

const body = document.body;

// endTurn clears what only a running turn has: streaming messages, calls
// marked running or waiting, approval cards. The chip follows with the
// server's status event (idle, or the next queued message's turn).
function endTurn() {
  settle();
  syncApprovals([]);
}

// onQueue shows the queue (the queued event, a snapshot's), as the server
// renders it, and lets a steer's hint go once the steer has gone in.
function onQueue(queued, html) {
  renderQueued(html);
  onSteerQueue(Array.isArray(queued) ? queued : []);
}

// --- Snapshot -----------------------------------------------------------------

let snapshots = 0;
let reconnected = false;

// session is the signal of the session the chat draws: aborted once
// another is swapped in (static/swap.js).
let session = AbortSignal.abort();

async function onSnapshot(d) {
  if (!d) return;
  const signal = session;
  const first = snapshots++ === 0;
  const busy = busyIn(d.status_html);
  // The page was rendered before the stream opened: events that passed
  // in between (data-events-seq is the last one before the page read the
  // document) may have finished messages this page never saw, even when
  // the turn has ended since and the snapshot says idle.
  const missed = typeof d.seq === 'number' && d.seq > Number(body.dataset.eventsSeq || 0);
  if (reconnected || (first && (busy || missed))) await resync(d);
  if (signal.aborted) return; // the page is another session's now
  reconnected = false;
  showStatus(d.status_html);
  if (typeof d.model === 'string') setModel(d.model);
  if (d.partial) {
    applyPartial(d.partial);
    showPartialThinking(d.partial);
  } else if (!busy) settle();
  syncNotes(Array.isArray(d.notes) ? d.notes : []);
  // After the notes (a !command's card is its note's), before the
  // approvals (a call waiting for one is running, and says it waits).
  syncRunning(Array.isArray(d.running) ? d.running : []);
  syncSubagents(Array.isArray(d.subagents) ? d.subagents : []);
  syncApprovals(Array.isArray(d.approvals) ? d.approvals : []);
  onQueue(d.queued, d.queued_html ?? '');
  if (d.goal) onGoal(d.goal);
  if (d.mode) setMode(d.mode);
  if (d.plan_ready) onPlanReady(d.plan_ready);
  setProviderHelp(typeof d.provider_help === 'string' ? d.provider_help : '');
  setLockedBy(d.locked_by);
  keepBottom();
}

// --- Event dispatch -----------------------------------------------------------

const handlers = {
  [EV.snapshot]: onSnapshot,
  [EV.status]: (d) => {
    showStatus(d?.html);
    onApprovalStatus(d?.status);
  },
  [EV.turnStart]: () => (clearPlanReady(), onTurnStart()), // a new turn answers the plan card
  [EV.messageStart]: onMessageStart,
  [EV.textDelta]: onDelta,
  [EV.messageBlocks]: onBlocks,
  [EV.toolStart]: onToolStart,
  [EV.toolApproval]: addApproval,
  [EV.toolOutput]: onToolOutput,
  [EV.toolEnd]: (d) => {
    removeApproval(d?.tool_use_id);
    onToolEnd(d);
  },
  [EV.messageEnd]: onMessageEnd,
  [EV.messageDiscard]: onMessageDiscard,
  [EV.turnEnd]: (d) => {
    endTurn();
    onTurnEnd(d);
  },
  [EV.turnError]: (d) => {
    endTurn();
    onTurnError(d);
  },
  [EV.queued]: (d) => onQueue(d?.queued, d?.html),
  [EV.btwStart]: onBtwStart,
  [EV.btwDelta]: onBtwDelta,
  [EV.btwEnd]: onBtwEnd,
  [EV.note]: onNote,
  [EV.thinkingDelta]: onThinking,
  [EV.goal]: onGoal,
  [EV.turnUndone]: (d) => markUndone(Array.isArray(d?.messages) ? d.messages : [], !!d?.undone),
  [EV.mode]: onMode,
  [EV.planReady]: onPlanReady,
  [EV.subagent]: onSubagent,
};

/** @param {EventSource} es @param {AbortSignal} signal */
function listen(es, signal) {
  // Blocks join the deltas' frame: they follow the text they cover.
  beforeEvery((name) => {
    if (name !== EV.textDelta && name !== EV.messageBlocks) flushDeltas();
  });
  for (const [name, fn] of Object.entries(handlers)) on(name, fn);
  es.addEventListener('error', () => {
    reconnected = true;
    const s = composer?.querySelector('[data-stream-state]');
    if (!s) return;
    // EventSource retries by itself unless the server refused the stream.
    s.textContent = es.readyState === EventSource.CLOSED ? 'Disconnected: reload the page' : 'Reconnecting…';
    s.hidden = false;
  }, { signal });
  es.addEventListener('open', () => {
    const s = composer?.querySelector('[data-stream-state]');
    if (s) s.hidden = true;
  }, { signal });
}

/** initChat wires the session page's chat until signal is aborted (the
 * page's session swapped for another: static/swap.js);
 * page-session.js calls it after opening the page's stream.
 * @param {AbortSignal} signal */
export function initChat(signal) {
  if (body.dataset.page !== 'session') return;
  session = signal;
  snapshots = 0;
  reconnected = false;
  signal.addEventListener('abort', dropDeltas);
  document.addEventListener('click', toggleDiff, { signal });
  document.addEventListener('click', retryAnswer, { signal });
  initGoal(signal);
  initMentions(signal);
  initUndo(signal);
  initApprovals(signal);
  initPlan(signal);
  initStatus();
  initTools(signal);
  initSubagents(signal);
  initSteer();
  initThinking();
  const root = document.querySelector('#composer [data-composer]');
  if (root) initComposer(root, signal);
  initScroll(signal);
  if (stream) listen(stream, signal);
  initPanel();
  initMCP(signal);
  initNotify(!!stream, signal);
  initAppBadge(signal); // the installed app's "needs you" count
  if (root && !location.hash) input.focus({ preventScroll: true });
}
