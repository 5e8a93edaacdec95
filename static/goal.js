// The standing goal in the tab: /goal, the goal bar above the composer
// (rendered by the server, web/goal.templ, and swapped in whole from each
// goal event) and its Pause, Resume and Stop buttons.
//
//   #goal-bar[data-url] [data-goal-move="running|paused|off|dismiss"]

import { api } from './http.js';
import { fragment } from './dom.js';
import { showError } from './alerts.js';
import { note, noteAbout, retell, urls } from './composer.js';

/**
 * @typedef {{text: string, turns_max: number, turns_used: number, state: string, note?: string}} Goal
 */

// The bar's buttons work from the page's first paint, before any event:
// one listener on the document, since the bar is replaced on each event.
function onBarClick(e) {
  const t = e.target instanceof Element ? e.target.closest('#goal-bar [data-goal-move]') : null;
  if (!(t instanceof HTMLElement)) return;
  const bar = /** @type {HTMLElement | null} */ (t.closest('#goal-bar'));
  const move = t.dataset.goalMove || '';
  if (move === 'dismiss') {
    if (bar) bar.hidden = true;
    return;
  }
  moveGoal(bar?.dataset.url || goalURL(), move).catch((err) => showError(`The goal could not change: ${err.message}`));
}

/** @returns {string} */
function goalURL() {
  return `${urls.session}/goal`;
}

/**
 * @param {string} url
 * @param {string} state
 * @returns {Promise<Goal | null>}
 */
async function moveGoal(url, state) {
  const res = /** @type {{goal: Goal | null}} */ (state === 'off' ? await api('DELETE', url) : await api('PATCH', url, { state }));
  return res?.goal || null;
}

// goalEvents counts the goal events, so that /goal's hint can tell
// whether one came while it waited for its answer.
let goalEvents = 0;
/** @type {Goal | null} */
let lastGoal = null;

/** onGoal swaps in the bar a goal event carries, and keeps a hint about
 * the goal under the composer true: "turn 1 of 4, running" becomes
 * "turn 1 of 4, done" with the event that says so.
 * @param {(Goal & {html?: string}) | null} d */
export function onGoal(d) {
  if (!d || typeof d.html !== 'string') return;
  goalEvents++;
  lastGoal = d.state ? d : null;
  const old = document.getElementById('goal-bar');
  const next = fragment(d.html).firstElementChild;
  if (old && next) old.replaceWith(next);
  if (noteAbout() === 'goal') retell(lastGoal ? goalText(lastGoal) : 'No goal.');
}

/** @param {Goal} g */
function goalText(g) {
  const said = g.note ? ` (${g.note})` : '';
  return `Goal: ${g.text} — turn ${g.turns_used} of ${g.turns_max}, ${g.state}${said}`;
}

/** noteGoal says where g stands under the composer, as a hint the goal
 * events keep true.
 * @param {Goal | null} g
 * @param {boolean} persistent */
function noteGoal(g, persistent) {
  note(g ? goalText(g) : 'No goal.', persistent, 'goal');
}

/** answered is the goal to tell of once /goal's request (sent when
 * goalEvents was `sent`) answers g: a goal event that came meanwhile is as
 * new as the answer or newer (the goal may have run a turn already).
 * @param {number} sent
 * @param {Goal | null} g */
function answered(sent, g) {
  return goalEvents > sent ? lastGoal : g;
}

/**
 * /goal [--turns N] TEXT sets a goal; /goal alone shows it and resumes
 * one that is paused or blocked; /goal off stops it after the current
 * step, /goal pause pauses it.
 * @param {string} arg
 */
export async function goalCommand(arg) {
  const url = goalURL();
  const words = arg.trim();
  const sent = goalEvents;
  if (words === 'off' || words === 'pause') {
    const g = await moveGoal(url, words === 'off' ? 'off' : 'paused');
    noteGoal(answered(sent, g), true);
    return;
  }
  if (!words) {
    const g = /** @type {{goal: Goal | null}} */ (await api('GET', url)).goal;
    if (!g) {
      note('No goal. /goal [--turns N] TEXT sets one.', true);
      return;
    }
    const resumable = (g.state === 'paused' || g.state === 'blocked') && g.turns_used < g.turns_max;
    noteGoal(answered(sent, resumable ? (await moveGoal(url, 'running')) || g : g), true);
    return;
  }
  const m = /^--turns(?:=|\s+)(\S+)\s*([\s\S]*)$/.exec(words);
  /** @type {{text: string, turns?: number}} */
  const body = { text: words };
  if (m) {
    if (!/^-?\d+$/.test(m[1])) throw new Error(`--turns takes a number of turns, 1 to 100, not “${m[1]}”`);
    // Sent as typed, 0 too: the server says what is out of range (0 is
    // not "the default").
    body.turns = Number(m[1]);
    body.text = m[2].trim();
  }
  if (!body.text) throw new Error('say what the goal is: /goal [--turns N] TEXT');
  const res = /** @type {{goal: Goal}} */ (await api('POST', url, body));
  noteGoal(answered(sent, res.goal), false);
}

// initGoal makes the bar's buttons work, whichever bar the page shows.
/** @param {AbortSignal} signal the session's (static/swap.js) */
export function initGoal(signal) {
  lastGoal = null;
  document.addEventListener('click', onBarClick, { signal });
}
