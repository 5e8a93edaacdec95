// Telling the person: when an approval waits, a turn that ran long enough
// (settings notify_after, 10 s by default; data-notify-after) ends or fails, or a running goal stops (paused or blocked), while
// this tab is hidden, the browser notifies
// (once the person allowed it with the bell) and the tab's title carries a
// marker until the tab is seen again. A tab the person looks at is never
// notified: they see it happen. The profile's `notifications` setting off
// (data-notifications="off") turns the notifications off and the server
// leaves the bell out; the title marker stays. The bell cycles this
// browser's choice: every notification, only approvals, none.
//
//   <body data-session-id [data-notifications="off"] data-notify-after="10">
//   [data-testid="notify-button"][aria-pressed]     the bell (web/layout.templ)
//
// The marker lives in document.title, which stream.js's setTitle replaces as
// the title changes: an observer of <title> puts it back in front.

import { EV } from './events.js';
import { on } from './stream.js';
import { busyIn } from './status.js';
import { showError } from './alerts.js';

const body = document.body;

// longTurn is how long a turn must have run for its end to be worth a
// notification, in ms: a short one ends while the person still waits for
// it (settings notify_after).
function longTurn() {
  const s = Number.parseInt(body.dataset.notifyAfter || '', 10);
  return (Number.isFinite(s) && s >= 0 ? s : 10) * 1000;
}

const markers = { approval: '(!) ', ended: '● ' };

let marker = ''; // the marker the title carries now, '' for none
const started = new Map(); // turn → when this tab saw it start (ms)
const failed = new Set(); // turns that failed (turn.error precedes turn.end)
let busySince = 0; // a turn already running when the tab connected
const shown = new Set(); // notifications shown, closed when the tab is seen

function hidden() {
  return document.visibilityState === 'hidden';
}

// allowed reports whether a notification of this kind may be shown.
function allowed(kind) {
  if (body.dataset.notifications === 'off' || !('Notification' in window) || Notification.permission !== 'granted') return false;
  const m = mode();
  return m === 'all' || (m === 'approvals' && kind === 'approval');
}

// The browser's permission, once granted, cannot be taken back from a
// page: the bell then chooses, for this browser, what notifies: every
// notification ('all'), only approvals, or none ('off'), remembered here.
const modeKey = 'myco:notifications';
const oldMuteKey = 'myco:notifications-off'; // '1': off, before the modes
const modes = ['all', 'approvals', 'off'];

/** @returns {string} */
function mode() {
  try {
    const m = localStorage.getItem(modeKey);
    if (m && modes.includes(m)) return m;
    return localStorage.getItem(oldMuteKey) === '1' ? 'off' : 'all';
  } catch {
    return 'all';
  }
}

function setMode(m) {
  try {
    localStorage.setItem(modeKey, m);
    localStorage.removeItem(oldMuteKey);
  } catch {
    // storage refused (private mode): the bell stays as it is
  }
}

// --- Title marker -----------------------------------------------------------

function bareTitle() {
  const t = document.title;
  return marker && t.startsWith(marker) ? t.slice(marker.length) : t;
}

// setMarker puts a marker in front of the title; an approval's outranks
// an ended turn's until the tab is seen.
function setMarker(next) {
  if (marker === markers.approval && next !== '') return;
  const bare = bareTitle();
  marker = next;
  if (document.title !== marker + bare) document.title = marker + bare;
}

// keepMarker puts the marker back after the title changed under it.
function keepMarker() {
  if (marker && !document.title.startsWith(marker)) document.title = marker + document.title;
}

function seen() {
  if (hidden()) return;
  setMarker('');
  for (const n of shown) n.close();
  shown.clear();
}

// --- Notifications ----------------------------------------------------------

// tell marks the title and notifies, for a hidden tab only. tag makes the
// other tabs of the session replace one notification rather than add theirs.
function tell(kind, text, tag) {
  if (!hidden()) return;
  setMarker(markers[kind]);
  if (!allowed(kind)) return;
  let n;
  try {
    n = new Notification(bareTitle() || 'myco', { body: text, tag: `myco:${body.dataset.sessionId}:${tag}` });
  } catch {
    return; // some browsers only notify from a service worker
  }
  shown.add(n);
  n.onclick = () => {
    window.focus();
    n.close();
  };
  n.onclose = () => shown.delete(n);
}

function seconds(ms) {
  return `${Math.round(ms / 1000)} s`;
}

function onTurnEnd(d) {
  const turn = d?.turn || '';
  const since = started.get(turn) || busySince;
  started.delete(turn);
  busySince = 0;
  const didFail = failed.delete(turn);
  if (!since) return;
  const took = Date.now() - since;
  if (took < longTurn()) return;
  tell('ended', didFail ? `The turn failed after ${seconds(took)}.` : `The turn ended after ${seconds(took)}.`, `turn:${turn}`);
}

// A goal works while nobody watches: when it stops by itself (a budget
// spent, a guard, a failed turn: paused; or blocked by the agent) the
// person is told, however short its last turn was.
let goalState = '';

function onGoal(d) {
  const was = goalState;
  goalState = d?.state || '';
  if (was !== 'running' || (goalState !== 'paused' && goalState !== 'blocked')) return;
  const note = typeof d?.note === 'string' ? d.note.replace(/^(paused|blocked):\s*/, '') : '';
  tell('ended', note ? `The goal is ${goalState}: ${note}` : `The goal is ${goalState}.`, 'goal');
}

function onApproval(d) {
  const tool = typeof d?.name === 'string' && d.name ? d.name : 'a tool';
  tell('approval', `Waiting for your approval: ${tool}.`, `approval:${d?.tool_use_id || ''}`);
}

// onSubagent tells of a sub-agent that waits for an approval: the
// person answers it in the sub-agent's session, which its card links to.
function onSubagent(d) {
  if (d?.status !== 'approval') return;
  const title = typeof d.title === 'string' && d.title ? d.title : 'a sub-agent';
  tell('approval', `A sub-agent waits for your approval: ${title}.`, `subagent:${d.session || ''}:${d.detail || ''}`);
}

// --- The bell ---------------------------------------------------------------

const bellTitles = {
  default: 'Notify me when a turn ends or needs me',
  granted: 'Notifications are on: a hidden tab tells you when a turn ends or needs you (click for approvals only)',
  approvals: 'Notifications for approvals only: a hidden tab tells you when a turn needs you (click to turn them off)',
  muted: 'Notifications are off in this browser (click to turn them on)',
  denied: 'Notifications are blocked for this site in the browser’s settings',
};

function showBell(bell) {
  const p = Notification.permission;
  const m = mode();
  /** @type {string} */
  let state = p;
  if (p === 'granted' && m === 'off') state = 'muted';
  else if (p === 'granted' && m === 'approvals') state = 'approvals';
  bell.hidden = false;
  bell.dataset.permission = state;
  bell.setAttribute('aria-pressed', String(state === 'granted' || state === 'approvals'));
  bell.title = bellTitles[state] || bellTitles.default;
  bell.setAttribute('aria-label', bell.title);
}

// What the person is told after the browser's answer to the bell: a
// question dismissed or refused says where to go from there.
const permissionAnswers = {
  denied: 'Notifications are blocked for this site: allow them in the browser’s site settings, then click the bell again.',
  default: 'The browser did not allow notifications (its question was closed or not shown): click the bell to ask again.',
};

function initBell(signal) {
  const bell = document.querySelector('[data-testid="notify-button"]');
  if (!bell || !('Notification' in window)) return;
  showBell(bell);
  bell.addEventListener('click', async () => {
    const p = Notification.permission;
    if (p === 'granted') {
      setMode(modes[(modes.indexOf(mode()) + 1) % modes.length]);
      showBell(bell);
      return;
    }
    if (p === 'denied') {
      showError(permissionAnswers.denied);
      return;
    }
    // Browsers ask for the permission only from a click.
    try {
      const answer = await Notification.requestPermission();
      if (answer === 'granted') setMode('all');
      else showError(permissionAnswers[answer] || permissionAnswers.default);
    } finally {
      showBell(bell);
    }
  }, { signal });
}

// initNotify follows the session's stream for what the person should be
// told of; chat.js calls it on a session page.
/** @param {boolean} live @param {AbortSignal} signal the session's (static/swap.js) */
export function initNotify(live, signal) {
  marker = '';
  started.clear();
  failed.clear();
  busySince = 0;
  goalState = '';
  initBell(signal);
  const title = document.querySelector('title');
  if (title) {
    const obs = new MutationObserver(keepMarker);
    obs.observe(title, { childList: true, characterData: true, subtree: true });
    signal.addEventListener('abort', () => obs.disconnect());
  }
  document.addEventListener('visibilitychange', seen, { signal });
  if (!live) return;
  on(EV.snapshot, (d) => {
    const busy = d && busyIn(d.status_html);
    if (busy && !busySince && started.size === 0) busySince = Date.now();
    goalState = d?.goal?.state || '';
  });
  on(EV.turnStart, (d) => started.set(d?.turn || '', Date.now()));
  on(EV.turnError, (d) => {
    if (d?.turn) failed.add(d.turn);
  });
  on(EV.turnEnd, onTurnEnd);
  on(EV.toolApproval, onApproval);
  on(EV.goal, onGoal);
  on(EV.subagent, onSubagent);
}
