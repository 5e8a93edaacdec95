// Approvals: a card in the composer for each tool call that waits for a
// decision (tool.approval, or a snapshot's approvals). The server renders
// the card (web/approval.templ: the command or the diff, and three buttons
// with data-decision); this module puts it in, gives "Allow once" the
// keyboard, and posts the decision clicked to
// POST {data-approvals-url}{tool_use_id}. A card goes when its call ends
// or the turn does.
//
//   [data-composer][data-approvals-url] [data-approvals]   where cards go
//   [data-testid="approval"][data-tool-use-id]             a card
//     button[data-decision="once"|"session"|"deny"]
//     input[data-hunk-accept][value]                       a hunk's toggle (two or more hunks)
//     [data-testid="approval-hunks-status"]                how many are accepted
//
// A change of two or more hunks is reviewed by hunk: "Allow once" (and
// "Allow … for this session") send the indexes of the hunks still checked,
// {decision, hunks}, when one is unchecked; none checked is a denial.
//
// The card's HTML comes from the server, already escaped, and is parsed
// through a <template>.

import { api } from './http.js';
import { showError } from './alerts.js';
import { fragment, isTyping } from './dom.js';
import { keepBottom } from './scroll.js';
import { composer, input, urls } from './composer.js';
import { box, setToolState, toolEl } from './thread.js';

// --- Approvals ----------------------------------------------------------------

function approvalsBox() {
  return composer?.querySelector('[data-approvals]');
}

function approvalEl(id) {
  return approvalsBox()?.querySelector(`[data-testid="approval"][data-tool-use-id="${CSS.escape(id)}"]`) || null;
}

// removeApproval drops the card of a call that has ended (tool.end).
export function removeApproval(id) {
  if (!id) return;
  approvalEl(id)?.remove();
}

// One listener for every card, present and to come: the cards are the
// server's HTML, which carries no handlers.
function onDecide(e) {
  const b = e.target instanceof Element ? /** @type {HTMLButtonElement | null} */ (e.target.closest('button[data-decision]')) : null;
  const card = b?.closest('[data-testid="approval"]');
  if (card && approvalsBox()?.contains(card) && !b.disabled) decide(card, b.dataset.decision);
}

// A hunk's toggle turned: the status says how many are now accepted.
function onHunkToggle(e) {
  const box = e.target instanceof HTMLInputElement && e.target.matches('[data-hunk-accept]') ? e.target : null;
  const card = box?.closest('[data-testid="approval"]');
  if (card && approvalsBox()?.contains(card)) showHunks(card);
}

/** @param {Element} card */
function hunkBoxes(card) {
  return /** @type {HTMLInputElement[]} */ ([...card.querySelectorAll('input[data-hunk-accept]')]);
}

/** @param {Element} card */
function showHunks(card) {
  const boxes = hunkBoxes(card);
  const n = boxes.filter((b) => b.checked).length;
  const status = card.querySelector('[data-testid="approval-hunks-status"]');
  if (!status) return;
  status.textContent =
    n === boxes.length ? `All ${n} hunks accepted`
    : n === 0 ? 'No hunk accepted: allowing it changes nothing, as Deny would'
    : `${n} of ${boxes.length} hunks accepted: only ${n === 1 ? 'it' : 'they'} will be written`;
}

// hunksOf is the indexes of the hunks accepted, or undefined when all are
// (or the card has no toggles): the server then takes the change whole.
/** @param {Element} card */
function hunksOf(card) {
  const boxes = hunkBoxes(card);
  if (boxes.every((b) => b.checked)) return undefined;
  return boxes.filter((b) => b.checked).map((b) => Number(b.value));
}

async function decide(card, decision) {
  // Asked before the buttons are disabled, which takes the focus away.
  const hadFocus = card.contains(document.activeElement);
  const buttons = [...card.querySelectorAll('button'), ...hunkBoxes(card)];
  const hunks = decision === 'deny' ? undefined : hunksOf(card);
  for (const b of buttons) b.disabled = true;
  card.setAttribute('aria-busy', 'true');
  try {
    await api('POST', urls.approvals + encodeURIComponent(card.dataset.toolUseId), hunks ? { decision, hunks } : { decision });
    card.remove();
    if (hadFocus || document.activeElement === document.body) focusNext();
  } catch (err) {
    for (const b of buttons) b.disabled = false;
    card.removeAttribute('aria-busy');
    if (hadFocus) card.querySelector(`[data-decision="${decision}"]`)?.focus();
    showError(`Could not send the decision: ${err.message}`);
  }
}

// focusNext gives the keyboard to the next waiting card, or back to the
// composer once none waits.
function focusNext() {
  const next = approvalsBox()?.querySelector('[data-testid="approval"] [data-decision="once"]');
  if (next) showFocused(next);
  else input?.focus();
}

// showFocused focuses b and brings it into view: in a long diff the card
// scrolls (style.css keeps its buttons at its foot), the page does not.
function showFocused(b) {
  b.focus({ preventScroll: true });
  b.scrollIntoView({ block: 'nearest' });
}

// offerFocus gives "Allow once" of card the keyboard, unless the person is
// in the middle of typing a message (their next Enter must not approve a
// command) or already deciding on another card.
function offerFocus(card) {
  const focused = document.activeElement;
  // The text of a message on its way (Enter pressed, the composer not yet
  // cleared: an approval can come before the answer to the POST) is done
  // with, not being typed.
  const sending = composer?.querySelector('[data-testid="send-button"]')?.hasAttribute('aria-busy');
  const busyTyping = focused === input ? !sending && input.value.trim() !== '' : isTyping(focused);
  if (busyTyping || approvalsBox()?.contains(focused)) return;
  const allow = card.querySelector('[data-decision="once"]');
  if (allow) showFocused(allow);
}

// addApproval shows the card of a call that waits for a decision
// (tool.approval, or one of a snapshot's approvals), once, and marks its
// call waiting.
export function addApproval(a) {
  const box = approvalsBox();
  if (!a?.tool_use_id || !box) return;
  const call = toolEl(a.tool_use_id);
  if (call && !call.querySelector('[data-testid="tool-result"]')) setToolState(call, 'approval');
  if (approvalEl(a.tool_use_id) || typeof a.html !== 'string') return;
  const card = fragment(a.html).querySelector('[data-testid="approval"]');
  if (!card) return;
  box.append(card);
  // The bottom first: on a narrow page the panel comes after the
  // composer, and the button must end in view.
  keepBottom();
  offerFocus(card);
}

// onApprovalStatus takes a status event. A session waits for one decision
// at a time (its tools run one after another, each asked before it runs),
// so once its status is not "approval" no call waits: a card left was
// decided, in this tab or another, and its call runs ("tool") or is about
// to end (denied, stopped). Without this a call approved says "waiting
// for your approval" until it ends, and other tabs keep offering it.
export function onApprovalStatus(status) {
  if (status === 'approval') return;
  for (const card of approvalsBox()?.querySelectorAll('[data-testid="approval"]') || []) card.remove();
  for (const call of box()?.querySelectorAll('[data-testid="tool-call"][data-awaiting]') || []) {
    if (!call.querySelector('[data-testid="tool-result"]')) setToolState(call, status === 'tool' ? 'running' : '');
  }
}

// syncApprovals makes the cards those of list (a snapshot's approvals;
// none once a turn ends).
export function syncApprovals(list) {
  const want = new Set((list || []).map((a) => a?.tool_use_id).filter(Boolean));
  for (const card of approvalsBox()?.querySelectorAll('[data-testid="approval"]') || []) {
    if (!want.has(card.dataset.toolUseId)) card.remove();
  }
  for (const a of list || []) addApproval(a);
}

// initApprovals makes the cards' buttons and hunk toggles work, for
// every card present and to come.
/** @param {AbortSignal} signal the session's (static/swap.js) */
export function initApprovals(signal) {
  document.addEventListener('click', onDecide, { signal });
  document.addEventListener('change', onHunkToggle, { signal });
}
