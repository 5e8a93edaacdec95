// The conversation's elements on the page, found by what they are: the
// box of the latest thread's messages, a message by its ID, a tool call's
// card by its tool_use_id, and the line that says a call runs or waits.
// A leaf: the modules that write the conversation (conversation.js,
// tools.js, approvals.js, …) all find their elements here.
//
//   #messages  [data-testid="message"][data-message-id]
//   [data-testid="tool-call"][data-tool-use-id][data-running|data-awaiting]

import { el } from './dom.js';

// box is the latest thread's messages.
export function box() {
  return document.getElementById('messages');
}

// messageEl is a message on the page by its ID.
/** @returns {HTMLElement | null} */
export function messageEl(id) {
  if (!id) return null;
  return box()?.querySelector(`[data-testid="message"][data-message-id="${CSS.escape(id)}"]`) || null;
}

// toolEl is the card of a call on the page, by its tool_use_id.
export function toolEl(id) {
  if (!id) return null;
  return box()?.querySelector(`[data-testid="tool-call"][data-tool-use-id="${CSS.escape(id)}"]`) || null;
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
