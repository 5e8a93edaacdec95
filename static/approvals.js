// Approvals: a card in the composer for each tool call that waits for a
// decision (tool.approval, or a snapshot's approvals), with its command or
// its diff (diff.js) and the buttons that answer it through
// POST {data-approvals-url}{tool_use_id}. A card goes when its call ends or
// the turn does.
//
//   [data-composer][data-approvals-url] [data-approvals]   where cards go
//   [data-testid="approval"][data-tool-use-id]             a card
//
// Input arrives as JSON and goes in through textContent.

import { api } from './http.js';
import { showError } from './app.js';
import { button, el, isTyping } from './dom.js';
import { keepBottom } from './scroll.js';
import { composer, input, urls } from './composer.js';
import { diffView } from './diff.js';
import { inputText, setToolState, toolEl } from './tools.js';

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

// addApproval shows the card for a call that waits for a decision
// (tool.approval), once, and marks its call waiting.
export function addApproval(a) {
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

// syncApprovals makes the cards those of list (a snapshot's approvals;
// none once a turn ends).
export function syncApprovals(list) {
  const want = new Set((list || []).map((a) => a?.tool_use_id).filter(Boolean));
  for (const card of approvalsBox()?.querySelectorAll('[data-testid="approval"]') || []) {
    if (!want.has(card.dataset.toolUseId)) card.remove();
  }
  for (const a of list || []) addApproval(a);
}
