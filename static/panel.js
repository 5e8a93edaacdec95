// The side panel in the tab: its parts follow the panel event (rendered
// by the server from the page's own templ components), and links and the
// scratchpad are edited in place through PATCH /api/sessions/{id}. Other
// tabs hear of an edit through the same event.
import { fragment } from './dom.js';
import { showError } from './alerts.js';
import { api } from './http.js';
import { EV } from './events.js';
import { on } from './stream.js';
import { memoryOpen, onMemoryClick, onMemorySubmit } from './memory.js';

// initPanel follows the stream's panel events.
export function initPanel() {
  const side = document.querySelector('[data-testid="side-panel"]');
  if (!side) return;
  side.addEventListener('click', onClick);
  side.addEventListener('submit', onSubmit);
  side.addEventListener('focusout', onBlur);
  side.addEventListener('keydown', onKey);
  on(EV.panel, (d) => {
    if (d && typeof d.html === 'string') swap(d.html);
  });
  // The MCP servers as they are when the stream (re)connects: a state
  // that changed before it did reached no panel event of this tab.
  on(EV.snapshot, (d) => {
    if (d && typeof d.mcp_html === 'string' && d.mcp_html) swap(d.mcp_html);
  });
}

// held are the parts an event brought that could not go in yet, by name.
/** @type {Map<string, HTMLElement>} */
const held = new Map();

// swap replaces each part the event carries, except one the person is
// working in: a scratchpad being edited, the memory editor open, is not
// overwritten under them; that part goes in once they leave it.
function swap(html) {
  const next = fragment(html);
  for (const part of /** @type {NodeListOf<HTMLElement>} */ (next.querySelectorAll('[data-panel-part]'))) {
    held.set(part.dataset.panelPart || '', part);
  }
  applyHeld();
}

/** sameControl is the element of part that stands where old did.
 * @param {HTMLElement} part @param {HTMLElement} old
 * @returns {HTMLElement | null} */
function sameControl(part, old) {
  const key = old.dataset.testid ? `[data-testid="${CSS.escape(old.dataset.testid)}"]` : old.id ? `#${CSS.escape(old.id)}` : '';
  return key ? part.querySelector(key) : null;
}

function applyHeld() {
  const active = document.activeElement;
  for (const [name, part] of held) {
    const old = document.querySelector(`[data-panel-part="${name}"]`);
    const within = !!old && old.contains(active);
    if (old && ((within && active?.matches('textarea, input, select')) || memoryOpen(old))) continue;
    held.delete(name);
    old?.replaceWith(part);
    // A control that had the focus (the memory editor's button, after
    // Save) has it again in the new part, found by its test id or id.
    if (within && active instanceof HTMLElement) sameControl(part, active)?.focus();
  }
}

function linksOnPage() {
  return [.../** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-panel-part="links"] [data-link]'))].map((li) => {
    const l = { url: li.dataset.url || '' };
    if (li.dataset.title) l.title = li.dataset.title;
    return l;
  });
}

async function patch(url, change) {
  try {
    await api('PATCH', url, change);
    return true;
  } catch (err) {
    showError(`Could not save: ${err.message}`);
    return false;
  }
}

// patchURL is where links and the scratchpad are saved: the link form's
// (or the scratchpad's) data-url, not any part's.
function patchURL() {
  return /** @type {HTMLElement | null} */ (document.querySelector('[data-testid="link-add"][data-url], [data-testid="scratchpad"][data-url]'))?.dataset.url || '';
}

function onClick(e) {
  if (onMemoryClick(e)) {
    applyHeld();
    return;
  }
  const remove = e.target.closest('[data-testid="link-remove"]');
  if (!remove) return;
  const li = remove.closest('[data-link]');
  const url = patchURL();
  if (!li || !url) return;
  const all = [...document.querySelectorAll('[data-panel-part="links"] [data-link]')];
  const at = all.indexOf(li);
  const links = linksOnPage().filter((_, i) => i !== at);
  remove.disabled = true;
  patch(url, { links }).finally(() => {
    remove.disabled = false;
  });
}

async function onSubmit(e) {
  const saving = onMemorySubmit(e);
  if (saving) {
    await saving;
    applyHeld();
    return;
  }
  const form = e.target.closest('[data-testid="link-add"]');
  if (!form) return;
  e.preventDefault();
  const u = form.elements.namedItem('url').value.trim();
  const title = form.elements.namedItem('title').value.trim();
  if (!/^https?:\/\//i.test(u)) {
    showError('Only http and https links can be added.');
    return;
  }
  const link = { url: u };
  if (title) link.title = title;
  if (await patch(form.dataset.url, { links: [...linksOnPage(), link] })) form.reset();
}

function scratchpad(el) {
  return el instanceof HTMLTextAreaElement && el.dataset.testid === 'scratchpad' ? el : null;
}

// saveScratchpad sends the text when it changed since the page or the last
// save had it.
async function saveScratchpad(area) {
  if (area.value === area.defaultValue) return;
  const text = area.value;
  if (await patch(area.dataset.url, { scratchpad: text })) area.defaultValue = text;
}

function onBlur(e) {
  const area = scratchpad(e.target);
  if (area) saveScratchpad(area);
  // The focus moves on after focusout: a part held for it goes in then.
  setTimeout(applyHeld, 0);
}

function onKey(e) {
  const area = scratchpad(e.target);
  if (area && e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    saveScratchpad(area);
  }
}
