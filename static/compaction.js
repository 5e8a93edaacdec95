// Compaction in the tab: the context gauge in the side panel, the Compact
// button, and the live boundary where a successor thread begins. The page
// rendered on load shows earlier threads collapsed; this module only adds
// what happens while the tab is open.
import { on } from './stream.js';
import { showError } from './alerts.js';
import { api } from './http.js';
import { fragment } from './dom.js';
import { EV } from './events.js';

/** initCompaction wires the gauge and the stream's compaction events on
 * a session page that follows a stream, until signal is aborted.
 * @param {AbortSignal} signal */
export function initCompaction(signal) {
  // The gauge is swapped whole when the context changes: its button is
  // found through the click, not held.
  document.addEventListener('click', (e) => {
    const button = e.target instanceof Element ? e.target.closest('[data-testid="compact-button"]') : null;
    if (button instanceof HTMLButtonElement) compactNow(button);
  }, { signal });
  document.querySelector('[data-action="show-carried"]')?.addEventListener('click', showCarried);
  on(EV.snapshot, (d) => renderGauge(d?.context));
  on(EV.context, renderGauge);
  on(EV.compactionStart, onStart);
  on(EV.compactionEnd, onEnd);
}

async function compactNow(button) {
  button.disabled = true;
  try {
    await api('POST', button.dataset.url, {});
  } catch (err) {
    showError(`Could not compact: ${err.message}`);
  } finally {
    button.disabled = false;
  }
}

// renderGauge puts in the gauge the server rendered for the context now
// (web contextGauge, the page's own): the rule for its figures, colours
// and words lives there alone.
function renderGauge(c) {
  const gauge = document.querySelector('[data-testid="context-gauge"]');
  if (!gauge || typeof c?.html !== 'string' || !c.html) return;
  const next = fragment(c.html).firstElementChild;
  if (!next) return;
  const hadFocus = gauge.contains(document.activeElement);
  gauge.replaceWith(next);
  if (hadFocus) /** @type {HTMLElement | null} */ (next.querySelector('button'))?.focus();
}

function conversation() {
  return document.querySelector('#messages') || document.querySelector('.threads');
}

function onStart(d) {
  const box = conversation();
  if (!box) return;
  const note = document.createElement('p');
  note.className = 'compaction-progress';
  note.setAttribute('data-testid', 'compaction-progress');
  note.setAttribute('role', 'status');
  note.textContent = `Compacting the conversation (${d?.reason || 'requested'})…`;
  box.append(note);
}

// onEnd turns the progress line into the boundary of the new thread, or
// into an error that says what failed; the old thread is untouched either
// way.
function onEnd(d) {
  const box = conversation();
  const note = box?.querySelector('[data-testid="compaction-progress"]:last-of-type');
  note?.remove();
  if (!box) return;
  if (!d?.ok) {
    const p = document.createElement('p');
    p.className = 'compaction-error';
    p.setAttribute('data-testid', 'compaction-error');
    p.textContent = `Compaction failed: ${d?.error || 'unknown error'}. The conversation is unchanged.`;
    box.append(p);
    return;
  }
  const boundary = document.createElement('div');
  boundary.className = 'thread-boundary live';
  boundary.setAttribute('role', 'separator');
  boundary.setAttribute('data-testid', 'thread-boundary');
  const span = document.createElement('span');
  span.textContent = 'Compacted here · earlier messages are kept above; the agent continues from a summary';
  boundary.append(span);
  if (d.summary) {
    const details = document.createElement('details');
    details.className = 'live-summary';
    const summary = document.createElement('summary');
    summary.textContent = 'Summary';
    const pre = document.createElement('pre');
    pre.textContent = d.summary;
    details.append(summary, pre);
    boundary.append(details);
  }
  box.append(boundary);
}

// showCarried opens the earlier thread whose last messages the latest one
// carries: they are shown there, once, and the button marks their place.
function showCarried() {
  const d = /** @type {HTMLDetailsElement | null} */ (document.querySelector('[data-carried-into] details'));
  if (!d) return;
  d.open = true;
  d.scrollIntoView({ block: 'end' });
}
