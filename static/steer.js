// Steering a running turn from the composer (issue 12): the /steer,
// /queue, /btw and /usage commands, and the side-answer cards /btw opens.
//
//   #messages > [data-testid="btw-card"][data-btw-id]   a side answer
//   #messages > [data-testid="usage-card"]              /usage
//   [data-composer][data-session-url]
//
// A card is outside the conversation: it is never saved, a reload drops
// it, and × dismisses it. The question and the streamed text go in through
// textContent; the finished answer is the server's rendered HTML.

import { api } from './http.js';
import { button, el, fragment } from './dom.js';
import { keepBottom } from './scroll.js';
import { box } from './thread.js';
import { note, noteAbout, urls } from './composer.js';
import { usageFigures } from './usage.js';
import { subagentsList } from './subagent.js';

// --- Commands -------------------------------------------------------------------

/** @type {Record<string, (arg: string) => Promise<unknown> | unknown>} */
export const steerActions = {
  steer: async (arg) => {
    if (!arg) throw new Error('say how to steer: /steer use the smaller fixture');
    // The queued event lists it (queued.js).
    const res = await api('POST', `${urls.session}/steer`, { text: arg });
    if (res?.steer) hintSteer(String(res.steer));
    else if (res?.queued) note('Queued: the turn was ending; it is sent when the turn is done.');
  },
  queue: async (arg) => {
    if (!arg) throw new Error('give the message to queue: /queue then run the tests');
    const res = await api('POST', urls.messages, { text: arg, queue: true });
    if (res?.queued) note('Queued: it is sent when the running turn ends.');
  },
  btw: async (arg) => {
    if (!arg) throw new Error('ask the side question: /btw what does that flag do?');
    await api('POST', `${urls.session}/btw`, { question: arg });
  },
  usage: async () => {
    showCard(await usageCard());
  },
  subagents: async () => {
    const c = card('subagents-card', 'Sub-agents running');
    c.append(await subagentsList());
    showCard(c);
  },
};

// --- The steer's hint -------------------------------------------------------------

// The hint under the composer says a steer waits for the current step, and
// goes with the queue event that takes the steer off the list: it went in
// (or, its turn ended first, it now waits as a queued message). The answer
// to /steer can come after that event, so the steers seen leave a trace.
let steersWaiting = new Set(); // ids of the steers the last queue listed
const steersGone = new Set(); // ids of the steers listed once, and no more

// initSteer forgets the steers of the session the page showed before
// (static/swap.js).
export function initSteer() {
  steersWaiting = new Set();
  steersGone.clear();
}

function hintSteer(id) {
  if (steersGone.has(id)) return; // already in
  note('Steer: it goes in after the current step.', true, `steer:${id}`);
}

// onSteerQueue takes the queue (the queued event, a snapshot's).
export function onSteerQueue(list) {
  const now = new Set((list || []).filter((q) => q?.steer).map((q) => String(q.id ?? '')));
  for (const id of steersWaiting) if (!now.has(id)) steersGone.add(id);
  steersWaiting = now;
  const about = noteAbout();
  if (about.startsWith('steer:') && steersGone.has(about.slice('steer:'.length))) note('');
}

// --- Cards ----------------------------------------------------------------------

// card makes a dismissable card titled title.
function card(testid, title) {
  const c = el('section', `side-card ${testid}`);
  c.setAttribute('data-testid', testid);
  c.setAttribute('aria-label', title);
  const head = el('header', 'side-card-head');
  head.append(el('span', 'side-card-title', title));
  const close = button('×', 'side-card-close');
  close.setAttribute('aria-label', 'Dismiss');
  close.dataset.testid = 'dismiss-card';
  close.addEventListener('click', () => c.remove());
  head.append(close);
  c.append(head);
  return c;
}

function showCard(c) {
  const b = box();
  if (!b) return;
  b.querySelector(':scope > .empty')?.remove();
  b.append(c);
  keepBottom();
}

// usageCard is the /usage card: the figures as the server renders them
// from the document, so they are the same after a reload.
async function usageCard() {
  const c = card('usage-card', 'Usage');
  c.append(await usageFigures(document.body.dataset.sessionId || ''));
  return c;
}

/** @returns {HTMLElement | null} */
function btwCard(id) {
  return box()?.querySelector(`[data-testid="btw-card"][data-btw-id="${CSS.escape(id)}"]`) || null;
}

// onBtwStart opens the card of a side question (in every tab of the session).
export function onBtwStart(d) {
  const id = String(d?.id ?? '');
  if (!id || btwCard(id)) return;
  const c = card('btw-card', 'By the way');
  c.dataset.btwId = id;
  c.setAttribute('aria-busy', 'true');
  c.append(el('p', 'btw-question', typeof d.question === 'string' ? d.question : ''));
  c.append(el('div', 'btw-answer streaming-text'));
  showCard(c);
}

export function onBtwDelta(d) {
  const a = btwCard(String(d?.id ?? ''))?.querySelector('.btw-answer');
  if (!a || typeof d.text !== 'string') return;
  a.textContent += d.text;
  keepBottom();
}

export function onBtwEnd(d) {
  const c = btwCard(String(d?.id ?? ''));
  if (!c) return;
  c.removeAttribute('aria-busy');
  const a = c.querySelector('.btw-answer');
  if (!a) return;
  if (typeof d.html === 'string' && d.html) {
    // The answer as the page renders one; only its body, not the
    // message's header and buttons.
    const f = fragment(d.html);
    const body = f.querySelector('.md') || f;
    a.classList.remove('streaming-text');
    a.replaceChildren(...body.childNodes);
  }
  if (typeof d.error === 'string' && d.error) a.append(el('p', 'btw-error', `No answer: ${d.error}`));
  keepBottom();
}
