// Reasoning effort and persona: /think and /personality, the chip beside
// the model name that shows them, and the model's thinking as it streams
// (thinking.delta) into a folded block at the top of its answer. The
// stored block comes with message.end, rendered by the server the same
// way (web/message.templ), "Thought for N s" instead of "Thinking…".

import { api } from './http.js';
import { el } from './dom.js';
import { messageEl } from './thread.js';
import { keepBottom } from './scroll.js';
import { note, urls } from './composer.js';
import { turnRunning } from './status.js';

/**
 * @typedef {{model: string, think: string, effective: string, supported: boolean,
 *   levels: string[], personality: string, personalities: string[], chip: string}} Steering
 */

// asked counts the steering reads: only the latest one's answer is drawn,
// so an earlier read answered after a later /think cannot undo it. The
// page renders the chip as it loads (web/session.templ steeringChip):
// nothing is read until a command changes it.
let asked = 0;

// initThinking drops the answers of reads still on their way for the
// session the page showed before (static/swap.js), and shows this
// session's reasoning expanded or folded, as the person chose for it.
export function initThinking() {
  asked++;
  followReasoningView();
}

// --- Reasoning expanded or folded, per session --------------------------------
//
// `/think expanded` shows every reasoning block of the session open, new
// ones as they stream and after a reload; `/think folded` (the default)
// folds them. The choice is this browser's, kept in localStorage by
// session ID: it is how a tab shows the session, not part of the
// conversation, so the session's file (and what other tabs and browsers
// show) stays as it is.

const reasoningViews = ['expanded', 'folded'];

function reasoningKey() {
  return `myco:reasoning:${document.body.dataset.sessionId || ''}`;
}

/** @returns {boolean} whether this session's reasoning shows expanded */
function reasoningExpanded() {
  try {
    return localStorage.getItem(reasoningKey()) === 'expanded';
  } catch {
    return false;
  }
}

/** @param {string} view expanded or folded */
function setReasoningView(view) {
  try {
    if (view === 'expanded') localStorage.setItem(reasoningKey(), view);
    else localStorage.removeItem(reasoningKey());
  } catch {
    // storage refused (private mode): the choice lasts until the reload
  }
  document.body.dataset.reasoning = view;
  for (const d of document.querySelectorAll('details.thinking')) /** @type {HTMLDetailsElement} */ (d).open = view === 'expanded';
}

/** @type {MutationObserver | null} */
let reasoningWatch = null;

// followReasoningView opens the reasoning blocks that come in (streamed,
// rendered at message.end, loaded with earlier messages) while the
// session's choice is expanded.
function followReasoningView() {
  reasoningWatch?.disconnect();
  const expanded = reasoningExpanded();
  if (!document.body.dataset.sessionId) return;
  document.body.dataset.reasoning = expanded ? 'expanded' : 'folded';
  if (expanded) setReasoningView('expanded');
  reasoningWatch = new MutationObserver((records) => {
    if (document.body.dataset.reasoning !== 'expanded') return;
    for (const r of records) {
      for (const n of r.addedNodes) {
        if (!(n instanceof Element)) continue;
        const found = n.matches('details.thinking') ? [n] : n.querySelectorAll('details.thinking');
        for (const d of found) /** @type {HTMLDetailsElement} */ (d).open = true;
      }
    }
  });
  const messages = document.getElementById('messages') || document.body;
  reasoningWatch.observe(messages, { childList: true, subtree: true });
}

/** steering reads the session's steering and draws the chip from it.
 * @returns {Promise<Steering>} */
async function steering() {
  const n = ++asked;
  const s = /** @type {Steering} */ (await api('GET', `${urls.session}/steering`));
  if (n === asked) showChip(s);
  return s;
}

/** @param {Record<string, string>} change */
async function patch(change) {
  await api('PATCH', urls.session, change);
  await steering();
}

/** @param {Steering} s */
function thinkText(s) {
  const level = s.think ? s.effective : `${s.effective} (default)`;
  if (!s.supported) return `Thinking: ${level}; ${s.model} does not reason on request, so it is not sent (set models.${s.model}.thinking in settings.json if it does)`;
  return `Thinking: ${level}`;
}

/** /think [LEVEL]: set the session's reasoning effort, or show it.
 * @param {string} arg */
export async function thinkCommand(arg) {
  const level = arg.trim().toLowerCase();
  if (reasoningViews.includes(level)) {
    setReasoningView(level);
    note(level === 'expanded' ? 'Reasoning shows expanded in this session (in this browser)' : 'Reasoning shows folded in this session', true);
    return;
  }
  const running = turnRunning();
  if (level) await patch({ think: level });
  const s = await steering();
  let text = thinkText(s);
  // A turn already in its tool loop cannot start thinking halfway
  // (Anthropic refuses it): the server keeps it as it began.
  if (level && running && s.supported && s.effective !== 'off') text += '. The running turn goes on as it began; thinking starts with the next turn';
  if (!level && Array.isArray(s.levels)) text += `. Levels: ${s.levels.join(', ')}; /think expanded or folded shows the reasoning open or shut (now ${reasoningExpanded() ? 'expanded' : 'folded'})`;
  note(text, true);
}

/** /personality [NAME|off]: pick a persona, or list them.
 * @param {string} arg */
export async function personalityCommand(arg) {
  const name = arg.trim();
  if (name) await patch({ personality: name });
  const s = await steering();
  if (name) {
    note(s.personality ? `Personality: ${s.personality}` : 'Personality: off', true);
    return;
  }
  const list = s.personalities.length ? s.personalities.join(', ') : 'none (add "personalities" to settings.json)';
  note(`Personality: ${s.personality || 'off'}. Available: ${list}`, true);
}

/** The chip above the facts: the level and persona when set, in the
 * server's words (the page renders it first: web/session.templ
 * steeringChip), outside the facts grid and outside the part the panel
 * event redraws.
 * @param {Steering} s */
function showChip(s) {
  const line = /** @type {HTMLElement | null} */ (document.querySelector('[data-testid="steering"]'));
  const chip = line?.querySelector('[data-testid="steering-chip"]');
  if (!line || !chip) return;
  const text = typeof s.chip === 'string' ? s.chip : '';
  if (chip.textContent !== text) chip.textContent = text;
  line.hidden = text === '';
}

/** thinkingText is the text node of m's streaming thinking block, which
 * it adds (folded, at the top of the answer) when m has none yet.
 * @param {Element} m */
function thinkingText(m) {
  let box = m.querySelector(':scope > details.thinking');
  if (!box) {
    box = el('details', 'thinking streaming');
    box.setAttribute('data-testid', 'thinking');
    const summary = el('summary', '', 'Thinking…');
    summary.setAttribute('data-testid', 'thinking-summary');
    const text = el('div', 'thinking-text');
    text.setAttribute('data-testid', 'thinking-text');
    text.append(document.createTextNode(''));
    box.append(summary, text);
    const head = m.querySelector(':scope > header');
    if (head) head.after(box);
    else m.prepend(box);
  }
  return box.querySelector('.thinking-text')?.firstChild;
}

/** thinking.delta: the reasoning so far, in a folded block that opens.
 * @param {{message?: string, text?: string}} d */
export function onThinking(d) {
  if (!d?.message || typeof d.text !== 'string') return;
  const m = messageEl(d.message);
  if (!m) return;
  const node = thinkingText(m);
  if (node) node.textContent += d.text;
  keepBottom();
}

/** A snapshot's partial carries the thinking streamed so far: a tab that
 * (re)connects mid-thought shows it, and the deltas after it append.
 * Never taken back: a tab may already be further on.
 * @param {{message?: string, thinking?: string}} p */
export function showPartialThinking(p) {
  if (!p?.message || typeof p.thinking !== 'string' || !p.thinking) return;
  const m = messageEl(p.message);
  if (!m || !('streaming' in /** @type {HTMLElement} */ (m).dataset)) return;
  const node = thinkingText(m);
  if (node && p.thinking.startsWith(node.textContent || '')) node.textContent = p.thinking;
}
