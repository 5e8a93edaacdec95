// Sending from the composer of a session page: Enter or the button sends
// the message and its images (queued while a turn runs), Esc and the Stop
// button stop the turn and the queue (stop.js), the retry button of a
// failed answer asks again,
// and the draft comes back after a reload. The composer's state is
// composer.js's; images attachments.js's; slash commands commands.js's.
//
//   [data-composer-form]  [data-stop]
//   [data-action="retry"]                  a failed answer's retry button

import { onHistoryKey, resetHistory } from './history.js';
import { APIError, api } from './http.js';
import { showError } from './alerts.js';
import { isTyping } from './dom.js';
import { followBottom } from './scroll.js';
import { turnRunning } from './status.js';
import { stopAll } from './stop.js';
import { initQueued } from './queued.js';
import { addUploaded, initImages } from './attachments.js';
import { addUploadedFile, sentFiles } from './documents.js';
import { attachMentions, clearChips, completePath, runOwnCommand } from './mentions.js';
import { dismissPicker, hidePicker, onPickerKey, updatePicker } from './picker.js';
import { closeCards, closePanels, hideCommands, initCommands, onListKey, parseCommand, runCommand, updateCommands } from './commands.js';
import {
  attachments, autosize, bindComposer, clearComposer, clearSent, composer, draftKey, input, isSending, lockedText, note,
  saveDraft, setSending, urls, whenIdle,
} from './composer.js';

// again: Enter was pressed while something was on its way; it is honoured
// once that is done, rather than dropped.
let again = false;

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
    if (img?.kind === 'file') addUploadedFile(img); // documents.js
    else if (typeof img?.sha === 'string' && /^[0-9a-f]{64}$/.test(img.sha)) addUploaded(img.sha, img.name || 'image');
  }
}

async function sendMessage(raw, text) {
  setSending(true);
  const sent = [...attachments];
  // The page may swap to another session while the message is on its way
  // (static/swap.js binds that session's composer): what follows is this
  // session's, and must not touch the other's composer, notes or sending
  // state. Its draft, kept under this session's key, is forgotten once
  // the message is in.
  const bound = input;
  const key = draftKey();
  const here = () => input === bound;
  try {
    if (sent.some((a) => a.state === 'uploading')) note('Waiting for the images to finish uploading…');
    const shas = (await Promise.all(sent.filter((a) => a.kind !== 'file').map((a) => a.done))).filter(Boolean);
    const files = await sentFiles(sent); // documents.js
    const msg = { text, images: shas, ...(files.length ? { files } : {}) };
    await attachMentions(text); // @path (mentions.js)
    try {
      await api('POST', urls.messages, msg);
    } catch (err) {
      // A turn is running: the message waits for it rather than being lost.
      if (!(err instanceof APIError) || err.status !== 409 || err.data.pid) throw err;
      // The queued event lists it (queued.js).
      await api('POST', urls.messages, { ...msg, queue: true });
      if (here()) note('Queued: it is sent when the running turn ends.');
    }
    if (!here()) {
      forgetDraft(key, raw);
      return;
    }
    clearSent(raw, sent);
    hideCommands();
    hidePicker();
    clearChips(); // the attachments went with it
    // Whoever sends wants to see the answer come in.
    followBottom();
  } catch (err) {
    // Away from the session, its draft still holds the message: nothing is
    // lost, and the error is not told on another session's page.
    if (!here()) return;
    if (err instanceof APIError && err.status === 409 && err.data.pid) {
      showError(lockedText(err.data), err.data.url);
    } else {
      showError(`Could not send the message: ${err.message}`);
    }
  } finally {
    if (here()) setSending(false);
  }
}

// forgetDraft drops the draft kept under key if it is still the text that
// was sent (a session left while its message was on its way).
function forgetDraft(key, text) {
  try {
    const d = JSON.parse(sessionStorage.getItem(key) || 'null');
    if (d && d.text === text) sessionStorage.removeItem(key);
  } catch {
    // storage may be off: there is no draft to forget
  }
}

// submit runs a slash command or sends the message and its images.
export function submit() {
  if (input.disabled) return;
  if (isSending()) {
    again = input.value.trim() !== '';
    return;
  }
  const raw = input.value;
  const cmd = parseCommand(raw);
  if (cmd) {
    runCommand(cmd);
    return;
  }
  if (runOwnCommand(raw)) { // !command (mentions.js)
    clearComposer();
    hideCommands();
    hidePicker();
    return;
  }
  const text = (raw.startsWith('//') ? raw.slice(1) : raw).trim();
  if (!text && attachments.length === 0) return;
  sendMessage(raw, text);
}

// --- Keyboard -----------------------------------------------------------------

function onInputKey(e) {
  // Keys that confirm an IME composition are the composition's.
  if (e.isComposing || e.keyCode === 229) return;
  if (onPickerKey(e) || onListKey(e)) { // the @ picker (picker.js) first
    e.preventDefault();
    e.stopPropagation();
    return;
  }
  if (onHistoryKey(e)) { // ↑ ↓ in an empty composer (history.js)
    e.preventDefault();
    return;
  }
  if (e.key === 'Enter' && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey) {
    e.preventDefault();
    submit();
  }
  // Tab after @ completes a path (mentions.js).
  if (e.key === 'Tab' && !e.shiftKey && /(?:^|\s)@\S*$/.test(input.value.slice(0, input.selectionStart))) {
    e.preventDefault();
    // A file completed whole closes the @ picker as picking it there does:
    // a list that answered the shorter @word meanwhile would take the
    // Enter meant to send ("@hel", Tab, Enter sent nothing).
    completePath(input)
      .then((done) => done === 'file' && dismissPicker())
      .catch(() => {});
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
  stopAll();
}

// --- Wiring -------------------------------------------------------------------

/** initComposer wires the composer root until signal is aborted.
 * @param {AbortSignal} signal */
export function initComposer(root, signal) {
  bindComposer(root);
  again = false;
  whenIdle(() => {
    if (!again) return;
    again = false;
    queueMicrotask(submit);
  });
  initCommands(root, signal);
  initQueued();
  resetHistory(input);
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
    updatePicker();
    saveDraft();
  });
  input.addEventListener('keydown', onInputKey);
  input.addEventListener('blur', hideCommands);
  input.addEventListener('blur', hidePicker);
  initImages(root, signal);

  root.querySelector('[data-stop]').addEventListener('click', stopAll);
  document.addEventListener('keydown', onEscape, { signal });
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
