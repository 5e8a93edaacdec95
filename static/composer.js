// The composer of a session page: the message box (its text kept as a
// draft across reloads), sending with Enter or the button (queued while a
// turn runs), Esc and the Stop button, the retry button of a failed
// answer, and the notes under the box. Images are attachments.js's, slash
// commands commands.js's, the status chip status.js's.
//
//   #composer [data-composer][data-messages-url][data-stop-url][data-retry-url]
//             [data-approvals-url][data-session-url]
//   [data-composer-form]  [data-testid="composer-input"]  [data-testid="send-button"]
//   [data-stop]  [data-composer-note]  [data-testid="provider-help"] [data-provider-help-text]
//   [data-action="retry"]                  a failed answer's retry button

import { APIError, api } from './http.js';
import { showError } from './app.js';
import { isTyping } from './dom.js';
import { followBottom } from './scroll.js';
import { stopTurn, turnRunning } from './status.js';
import { queuedAnswer } from './queued.js';
import { addUploaded, attachments, initImages } from './attachments.js';
import { attachMentions, clearChips, completePath, runOwnCommand } from './mentions.js';
import { closeCards, closePanels, hideCommands, initCommands, onListKey, parseCommand, runCommand, updateCommands } from './commands.js';

const body = document.body;

// --- Composer -----------------------------------------------------------------

// Set once by initComposer; the other modules of the chat read them.
export let composer = null; // [data-composer]
export let input = null; // the textarea
export let urls = {};

// noteTimer clears a note that is not persistent.
let noteTimer = 0;

// note says text under the composer, for a few seconds unless persistent.
// about names what it speaks of ('steer:ID', 'goal'), so that the event
// which makes it untrue can change or clear it (noteAbout).
export function note(text, persistent = false, about = '') {
  const n = composer?.querySelector('[data-composer-note]');
  if (!(n instanceof HTMLElement)) return;
  n.textContent = text;
  if (text && about) n.dataset.about = about;
  else delete n.dataset.about;
  clearTimeout(noteTimer);
  if (text && !persistent) noteTimer = setTimeout(() => note(''), 6000);
}

// retell changes the text of the note shown, keeping what it is about and
// how long it stays: the news that made the old text untrue.
export function retell(text) {
  const n = composer?.querySelector('[data-composer-note]');
  if (n instanceof HTMLElement && n.textContent) n.textContent = text;
}

// noteAbout is what the note shown speaks of ('' for none).
export function noteAbout() {
  const n = composer?.querySelector('[data-composer-note]');
  return n instanceof HTMLElement ? n.dataset.about || '' : '';
}

let writable = true;

// setWritable turns the composer on or off (an archived or locked session).
export function setWritable(on, status) {
  if (!composer || on === writable) return;
  writable = on;
  const form = composer.querySelector('[data-composer-form]');
  for (const c of form.querySelectorAll('textarea, button, input')) c.disabled = !on;
  form.classList.toggle('disabled', !on);
  if (!on && status === 'archived') note('This session was archived; reload the page to see it read-only.', true);
}

// Drafts: typed text and attached images survive a reload of the tab.
const draftKey = () => `myco.draft.${body.dataset.sessionId}`;

export function saveDraft() {
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

/** clearComposer empties the composer of text, what was sent (all of it
 * by default); what was typed since stays.
 * @param {string} [text] */
export function clearComposer(text = input.value) {
  clearSent(text, [...attachments]);
}

// stashed is the draft the palette set aside to put a command that needs
// an argument in the composer ("/title "); it comes back once that command
// has run, so the palette never loses what was typed.
let stashed = null;

/** @param {string} draft */
export function stashDraft(draft) {
  stashed = draft;
}

// restoreStash puts the set-aside draft back after a command ran, unless
// something new was typed meanwhile (then both would be lost or mixed).
export function restoreStash() {
  if (stashed === null) return;
  if (input.value === '') {
    input.value = stashed;
    autosize();
    saveDraft();
  }
  stashed = null;
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

// --- Sending ------------------------------------------------------------------

let sending = false;
// again: Enter was pressed while something was on its way; it is honoured
// once that is done, rather than dropped.
let again = false;

export function setSending(on) {
  sending = on;
  if (!on && again) {
    again = false;
    queueMicrotask(submit);
  }
  const send = composer.querySelector('[data-testid="send-button"]');
  send.disabled = on || !writable;
  if (on) send.setAttribute('aria-busy', 'true');
  else send.removeAttribute('aria-busy');
}

export function lockedText(data) {
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
    await attachMentions(text); // @path (mentions.js)
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
    clearChips(); // the attachments went with it
    // Whoever sends wants to see the answer come in.
    followBottom();
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

// submit runs a slash command or sends the message and its images.
export function submit() {
  if (input.disabled) return;
  if (sending) {
    again = input.value.trim() !== '';
    return;
  }
  const raw = input.value;
  const cmd = parseCommand(raw);
  if (cmd) {
    runCommand(cmd);
    return;
  }
  if (runOwnCommand(raw)) return clearComposer(); // !command (mentions.js)
  const text = (raw.startsWith('//') ? raw.slice(1) : raw).trim();
  if (!text && attachments.length === 0) return;
  sendMessage(raw, text);
}

// --- Provider help, another process -------------------------------------------

export function setProviderHelp(text) {
  const box = composer?.querySelector('[data-testid="provider-help"]');
  if (!box) return;
  box.hidden = !text;
  box.querySelector('[data-provider-help-text]').textContent = text || '';
}

export function setLockedBy(lock) {
  if (!lock) return;
  let text = `This session is open in process ${lock.pid}`;
  text += lock.url ? ` (${lock.url}); continue there.` : '; continue there.';
  note(text, true);
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
  // Tab after @ completes a path (mentions.js).
  if (e.key === 'Tab' && !e.shiftKey && /(?:^|\s)@\S*$/.test(input.value.slice(0, input.selectionStart))) {
    e.preventDefault();
    completePath(input).catch(() => {});
  }
}

// onEscape: Esc closes an open panel or card (/diff, /undo's), else stops
// a running turn, when the composer or the page (not another field) has
// the focus.
function onEscape(e) {
  if (e.key !== 'Escape' || e.defaultPrevented || e.isComposing) return;
  const panel = closePanels();
  if (closeCards() || panel) {
    e.preventDefault();
    return;
  }
  if (!turnRunning() || (isTyping(e.target) && e.target !== input)) return;
  e.preventDefault();
  stopTurn().catch((err) => showError(`Could not stop the turn: ${err.message}`));
}

// --- Wiring -------------------------------------------------------------------

export function initComposer(root) {
  composer = root;
  input = root.querySelector('[data-testid="composer-input"]');
  urls = {
    messages: root.dataset.messagesUrl,
    stop: root.dataset.stopUrl,
    retry: root.dataset.retryUrl,
    approvals: root.dataset.approvalsUrl,
    session: root.dataset.sessionUrl,
  };
  initCommands(root);
  restoreDraft();
  autosize();

  const form = root.querySelector('[data-composer-form]');
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    submit();
  });
  input.addEventListener('input', () => {
    autosize();
    updateCommands();
    saveDraft();
  });
  input.addEventListener('keydown', onInputKey);
  input.addEventListener('blur', hideCommands);
  initImages(root);

  root.querySelector('[data-stop]').addEventListener('click', () => {
    stopTurn().catch((err) => showError(`Could not stop the turn: ${err.message}`));
  });
  document.addEventListener('keydown', onEscape);
}

// retryAnswer asks for the last failed or interrupted answer again; the
// answer it replaces comes back folded (message.end) and the new one
// streams in as any turn does.
//
// A turn stopped while a tool ran offers it on the stopped outcome, which
// arrived alone (its results went beside their calls): retried, that
// message has nothing left to show, as after a reload, so it goes at once.
export async function retryAnswer(e) {
  const b = e.target.closest('[data-action="retry"]');
  if (!b || !urls.retry) return;
  b.disabled = true;
  const m = b.closest('[data-testid="message"]');
  const alone = m && !m.querySelector(':scope > :not(.message-head, .message-actions)');
  const at = alone ? [m.parentNode, m.nextSibling] : null;
  if (alone) m.remove();
  try {
    await api('POST', urls.retry);
  } catch (err) {
    b.disabled = false;
    if (at && at[0]?.isConnected) at[0].insertBefore(m, at[1]?.parentNode === at[0] ? at[1] : null);
    showError(`Could not retry: ${err.message}`);
  }
}
