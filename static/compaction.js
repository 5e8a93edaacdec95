// Compaction in the tab: the context gauge in the side panel, the Compact
// button, and the live boundary where a successor thread begins. The page
// rendered on load shows earlier threads collapsed; this module only adds
// what happens while the tab is open.
import { stream, showError } from './app.js';
import { EV } from './events.js';

let gauge = null;

// initCompaction wires the gauge and the stream's compaction events on a
// session page that follows a stream.
export function initCompaction() {
  gauge = document.querySelector('[data-testid="context-gauge"]');
  const button = document.querySelector('[data-testid="compact-button"]');
  button?.addEventListener('click', () => compactNow(button));
  document.querySelector('[data-action="show-carried"]')?.addEventListener('click', showCarried);
  if (!stream) return;
  stream.addEventListener(EV.snapshot, (e) => {
    const d = parse(e);
    if (d?.context) renderGauge(d.context);
  });
  stream.addEventListener(EV.context, (e) => renderGauge(parse(e)));
  stream.addEventListener(EV.compactionStart, (e) => onStart(parse(e)));
  stream.addEventListener(EV.compactionEnd, (e) => onEnd(parse(e)));
}

function parse(e) {
  try {
    return JSON.parse(e.data);
  } catch {
    return null;
  }
}

async function compactNow(button) {
  button.disabled = true;
  try {
    const r = await fetch(button.dataset.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
      credentials: 'same-origin',
    });
    if (!r.ok) {
      const body = await r.json().catch(() => ({}));
      showError(`Could not compact: ${body.error || r.statusText}`);
    }
  } catch (err) {
    showError(`Could not compact: ${err.message}`);
  } finally {
    button.disabled = false;
  }
}

// renderGauge shows the context used against the threshold, and why
// automatic compaction is off when it is.
function renderGauge(c) {
  if (!gauge || !c) return;
  const meter = gauge.querySelector('meter');
  const label = gauge.querySelector('[data-context-label]');
  const off = gauge.querySelector('[data-context-off]');
  const fmt = (n) => Number(n || 0).toLocaleString();
  const limit = c.threshold || c.window || 0;
  if (meter) {
    meter.max = Math.max(limit, 1);
    meter.value = Math.min(c.used || 0, meter.max);
    meter.high = meter.max * 0.9;
    meter.optimum = 0;
  }
  // Amber from 70% of the threshold, red from 90%: the classes the page
  // renders too (web ContextInfo.Level).
  const share = c.threshold ? (c.used || 0) / c.threshold : 0;
  gauge.classList.toggle('context-full', share >= 0.9);
  gauge.classList.toggle('context-warn', share >= 0.7 && share < 0.9);
  gauge.dataset.used = String(c.used || 0);
  gauge.dataset.threshold = String(c.threshold || 0);
  gauge.dataset.auto = c.auto ? 'on' : 'off';
  if (label) {
    label.textContent = c.threshold
      ? `${fmt(c.used)} of ${fmt(c.threshold)} tokens before it compacts`
      : `${fmt(c.used)} tokens used`;
  }
  if (off) {
    off.hidden = !!c.auto;
    off.textContent = c.auto ? '' : `Automatic compaction is off: ${c.off_reason || 'turned off'}. You can still compact by hand.`;
  }
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
