// The composer of a session page, as every module of the chat reads it:
// its elements and the API's URLs, the note under the box, the draft kept
// across reloads, the images attached (attachments.js shows them), and
// whether something is on its way. It acts on nothing by itself: sending,
// keys and Stop are send.js's, slash commands commands.js's, the status
// chip status.js's. A leaf of the chat's modules: it imports none of them.
//
//   #composer [data-composer][data-messages-url][data-stop-url][data-retry-url]
//             [data-approvals-url][data-session-url]
//   [data-composer-form]  [data-testid="composer-input"]  [data-testid="send-button"]
//   [data-composer-note]  [data-testid="provider-help"] [data-provider-help-text]

const body = document.body;

// Set once by bindComposer; the other modules of the chat read them.
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

// attachments are the images attached to the next message, in order:
// {name, sha, state, el, ctl, done} (attachments.js adds and shows them).
export const attachments = [];

// Drafts: typed text and attached images survive a reload of the tab.
export function draftKey() {
  return `myco.draft.${body.dataset.sessionId}`;
}

export function saveDraft() {
  try {
    const images = attachments.filter((a) => a.sha)
      .map((a) => (a.kind === 'file' ? { kind: 'file', sha: a.sha, name: a.name, size: a.size } : { sha: a.sha, name: a.name }));
    if (!input.value && images.length === 0) sessionStorage.removeItem(draftKey());
    else sessionStorage.setItem(draftKey(), JSON.stringify({ text: input.value, images }));
  } catch {
    // storage may be off or full: the draft just isn't kept
  }
}

// Without CSS field-sizing, the textarea is grown by hand; the stylesheet
// caps it at 40% of the viewport, where it starts to scroll.
const fieldSizing = CSS.supports('field-sizing', 'content');

export function autosize() {
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
export function clearSent(text, sent) {
  if (input.value === text) input.value = '';
  for (const a of sent) {
    const i = attachments.indexOf(a);
    if (i >= 0) attachments.splice(i, 1);
    a.el.remove();
  }
  autosize();
  saveDraft();
}

// --- Sending ------------------------------------------------------------------

let sending = false;
// idle is called when what was on its way is done (send.js honours an
// Enter pressed meanwhile).
let idle = () => {};

// whenIdle sets what runs once sending is done.
export function whenIdle(fn) {
  idle = fn;
}

// isSending says whether a message or a command is on its way.
export function isSending() {
  return sending;
}

export function setSending(on) {
  sending = on;
  const send = composer.querySelector('[data-testid="send-button"]');
  send.disabled = on || !writable;
  if (on) send.setAttribute('aria-busy', 'true');
  else send.removeAttribute('aria-busy');
  if (!on) idle();
}

export function lockedText(data) {
  const where = data.url ? ` at ${data.url}` : '';
  return `This session is open in another myco process (pid ${data.pid})${where}. Continue there, or close it there first.`;
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

// bindComposer finds the composer's parts; send.js's initComposer calls
// it before anything else, so every module reads them set. A composer
// bound after another (static/swap.js swapped the session) starts empty
// of the other's state.
export function bindComposer(root) {
  clearTimeout(noteTimer);
  writable = true;
  attachments.length = 0;
  stashed = null;
  sending = false;
  idle = () => {};
  composer = root;
  input = root.querySelector('[data-testid="composer-input"]');
  urls = {
    messages: root.dataset.messagesUrl,
    stop: root.dataset.stopUrl,
    retry: root.dataset.retryUrl,
    approvals: root.dataset.approvalsUrl,
    session: root.dataset.sessionUrl,
  };
}
