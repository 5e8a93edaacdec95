// Versions of a message: Edit on a person's message, Regenerate on an
// answer (web/versions.templ), and ‹ 2 / 3 › on a message that has
// several versions. An edit, or a regeneration of an answer before the
// last, makes a fork holding the new version (session/versions.go); it is
// opened in place (swap.js), and the page keeps the edited message where
// it was on the screen. Switching versions does the same.
//
//   [data-testid="message"][data-message-id] .message-head
//     [data-action="edit-message"]        the inline editor (Enter sends,
//                                         Shift+Enter a new line, Esc cancels)
//     [data-action="regenerate-message"]  ask again, the session's model
//     [data-action="regenerate-with"]     …or another (GET /api/models)
//     [data-action="version-refused"]     an earlier thread's: says why
//     .versions [data-action="version-prev|version-next"]   added here,
//                                         from GET /api/sessions/{id}/versions

import { api } from './http.js';
import { button, el } from './dom.js';
import { setBusy } from './actions.js';
import { showError } from './alerts.js';
import { followBottom, letGo } from './scroll.js';
import { openInPlace } from './swap.js';

const messageSel = 'article[data-testid="message"]';

/** @returns {string} */
function sessionID() {
  return document.body.dataset.sessionId || '';
}

/** @param {Element} e @returns {HTMLElement | null} */
function messageOf(e) {
  return /** @type {HTMLElement | null} */ (e.closest(messageSel));
}

/** @param {string} id @returns {HTMLElement | null} */
function messageByID(id) {
  return id ? document.querySelector(`.threads ${messageSel}[data-message-id="${CSS.escape(id)}"]`) : null;
}

function sessionURL(...parts) {
  return `/api/sessions/${[sessionID(), ...parts].map(encodeURIComponent).join('/')}`;
}

// --- Keeping the place -----------------------------------------------------

/**
 * Place is where a message is on the screen before a version is opened:
 * its top in the viewport, and the message before it, which the versions
 * share (a fork keeps the messages before its branch point, IDs and all).
 * @typedef {{ top: number, before: string }} Place
 */

/** @param {HTMLElement} article @returns {Place} */
function placeOf(article) {
  const all = [...document.querySelectorAll(`.threads ${messageSel}`)];
  const i = all.indexOf(article);
  const before = i > 0 ? /** @type {HTMLElement} */ (all[i - 1]).dataset.messageId || '' : '';
  return { top: article.getBoundingClientRect().top, before };
}

/** pointIn is the message at the place in the page now shown: message
 * when known, else the one after the shared message before.
 * @param {Place} place @param {string} message @returns {HTMLElement | null} */
function pointIn(place, message) {
  const known = messageByID(message);
  if (known) return known;
  const before = messageByID(place.before);
  if (!before) return null;
  const all = [...document.querySelectorAll(`.threads ${messageSel}`)];
  return /** @type {HTMLElement | null} */ (all[all.indexOf(before) + 1] || null);
}

/** keepPlace scrolls so that the version's message stands where the one
 * it replaced stood; the page stops following its bottom (the new turn
 * streams below the reader, who is reading here).
 * @param {Place} place @param {string} message */
function keepPlace(place, message) {
  letGo();
  const put = () => {
    const point = pointIn(place, message);
    if (point) {
      window.scrollBy(0, point.getBoundingClientRect().top - place.top);
      return;
    }
    const before = messageByID(place.before);
    if (before) window.scrollBy(0, before.getBoundingClientRect().bottom - place.top);
  };
  put();
  // Messages off screen are laid out late (content-visibility): again
  // once the frame has settled them. A place that is at the page's end
  // anyway follows the end, as the new turn streams in there.
  requestAnimationFrame(() =>
    requestAnimationFrame(() => {
      put();
      const s = document.scrollingElement;
      if (s && s.scrollTop >= s.scrollHeight - s.clientHeight - 80) followBottom();
    }),
  );
}

/** openVersion shows the session at url in place and keeps the place.
 * @param {string} url @param {Place} place @param {string} message */
async function openVersion(url, place, message) {
  await openInPlace(url);
  keepPlace(place, message);
}

// --- Edit --------------------------------------------------------------------

/** textOf is the message's own words (its Markdown source), fetched: the
 * page may show them cut.
 * @param {HTMLElement} article */
async function textOf(article) {
  const res = await fetch(`${sessionURL('messages', article.dataset.messageId || '')}/markdown`, {
    credentials: 'same-origin',
    headers: { Accept: 'text/plain' },
  });
  if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
  return res.text();
}

/** imagesOf are the sha256 of the images a message shows.
 * @param {HTMLElement} article @returns {string[]} */
function imagesOf(article) {
  const out = [];
  for (const a of article.querySelectorAll('figure.image a[href]')) {
    const m = /\/images\/([0-9a-f]{64})/.exec(a.getAttribute('href') || '');
    if (m) out.push(m[1]);
  }
  return out;
}

/** @param {HTMLElement} trigger */
async function editMessage(trigger) {
  const article = messageOf(trigger);
  if (!article || article.classList.contains('editing')) return;
  setBusy(trigger, true);
  let text;
  try {
    text = await textOf(article);
  } catch (err) {
    showError(`Could not open the message for editing: ${err.message}`);
    return;
  } finally {
    setBusy(trigger, false);
  }
  openEditor(article, trigger, text);
}

/** @param {HTMLElement} article @param {HTMLElement} trigger @param {string} text */
function openEditor(article, trigger, text) {
  const form = el('form', 'message-editor');
  form.dataset.testid = 'message-editor';
  const area = /** @type {HTMLTextAreaElement} */ (el('textarea', 'message-editor-text'));
  area.dataset.testid = 'message-editor-text';
  area.setAttribute('aria-label', 'Your message, edited');
  area.value = text;
  area.rows = Math.min(12, Math.max(3, text.split('\n').length + 1));
  form.append(area);
  const images = imagesOf(article);
  /** @type {HTMLInputElement[]} */
  const keep = [];
  if (images.length) {
    const list = el('div', 'message-editor-images');
    images.forEach((sha, i) => {
      const label = el('label', 'message-editor-image');
      const box = /** @type {HTMLInputElement} */ (el('input'));
      box.type = 'checkbox';
      box.checked = true;
      box.value = sha;
      const img = /** @type {HTMLImageElement} */ (el('img'));
      img.src = `/images/${sha}`;
      img.alt = `Image ${i + 1}`;
      label.append(box, img, ` Keep image ${i + 1}`);
      keep.push(box);
      list.append(label);
    });
    form.append(list);
  }
  const actions = el('div', 'message-editor-actions');
  const send = button('Save & send', 'primary');
  send.type = 'submit';
  send.dataset.testid = 'message-editor-send';
  const cancel = button('Cancel');
  cancel.dataset.testid = 'message-editor-cancel';
  const note = el('span', 'message-editor-note', 'Enter sends · Shift+Enter: new line · Esc cancels. The earlier version is kept.');
  actions.append(send, cancel, note);
  form.append(actions);

  const close = () => {
    form.remove();
    article.classList.remove('editing');
    trigger.focus();
  };
  cancel.addEventListener('click', close);
  area.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      close();
    } else if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && !e.altKey) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    /** @type {{ text: string, images?: string[] }} */
    const body = { text: area.value };
    if (keep.some((b) => !b.checked)) body.images = keep.filter((b) => b.checked).map((b) => b.value);
    const place = placeOf(article);
    setBusy(send, true);
    area.readOnly = true;
    try {
      const made = await api('POST', `${sessionURL('messages', article.dataset.messageId || '')}/edit`, body);
      await openVersion(made.url, place, '');
    } catch (err) {
      setBusy(send, false);
      area.readOnly = false;
      showError(`Could not send the edited message: ${err.message}`);
    }
  });
  article.classList.add('editing');
  article.querySelector('.message-head')?.after(form);
  area.focus();
  area.setSelectionRange(area.value.length, area.value.length);
}

// --- Regenerate --------------------------------------------------------------

/** @param {HTMLElement} article @param {string} model @param {HTMLElement} busy */
async function regenerate(article, model, busy) {
  const place = placeOf(article);
  setBusy(busy, true);
  try {
    const made = await api('POST', `${sessionURL('messages', article.dataset.messageId || '')}/regenerate`, model ? { model } : {});
    // The last answer is retried in place: the stream shows it.
    if (!made.retried) await openVersion(made.url, place, '');
  } catch (err) {
    showError(`Could not regenerate the answer: ${err.message}`);
  } finally {
    if (busy.isConnected) setBusy(busy, false);
  }
}

/** @param {HTMLElement} trigger */
function regenerateMessage(trigger) {
  const article = messageOf(trigger);
  if (article) regenerate(article, '', trigger);
}

/** closeMenus takes away any open "with another model" list. */
function closeMenus() {
  for (const m of document.querySelectorAll('.regenerate-menu')) {
    m.closest(messageSel)?.querySelector('[data-action="regenerate-with"]')?.setAttribute('aria-expanded', 'false');
    m.remove();
  }
}

/** regenerateWith opens, under the answer, the models to ask instead.
 * @param {HTMLElement} trigger */
async function regenerateWith(trigger) {
  const article = messageOf(trigger);
  if (!article) return;
  const open = article.querySelector('.regenerate-menu');
  closeMenus();
  if (open) return;
  setBusy(trigger, true);
  let models;
  try {
    models = await api('GET', '/api/models');
  } catch (err) {
    showError(`Could not list the models: ${err.message}`);
    return;
  } finally {
    setBusy(trigger, false);
  }
  const menu = el('div', 'regenerate-menu');
  menu.dataset.testid = 'regenerate-menu';
  menu.setAttribute('role', 'group');
  menu.setAttribute('aria-label', 'Regenerate with');
  menu.append(el('span', 'regenerate-menu-label', 'Regenerate with'));
  const names = [...new Set((models?.models || []).map((/** @type {{name: string}} */ c) => c.name))].sort();
  for (const name of names) {
    const b = button(name, 'regenerate-model');
    b.dataset.testid = 'regenerate-model';
    b.dataset.model = name;
    b.addEventListener('click', () => {
      closeMenus();
      regenerate(article, name, trigger);
    });
    menu.append(b);
  }
  if (!names.length) menu.append(el('span', 'muted', 'no other model is configured'));
  menu.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      closeMenus();
      trigger.focus();
    }
  });
  trigger.setAttribute('aria-expanded', 'true');
  article.querySelector('.message-head')?.after(menu);
  /** @type {HTMLElement | null} */ (menu.querySelector('button'))?.focus();
}

/** @param {HTMLElement} trigger */
function versionRefused(trigger) {
  showError(trigger.dataset.note || 'This message cannot be changed.');
}

// --- ‹ 2 / 3 › -------------------------------------------------------------

/**
 * @typedef {{ session: string, message: string, url: string }} Version
 * @typedef {{ current: number, versions: Version[] }} Point
 */

/** @type {WeakMap<HTMLElement, Point>} */
const shown = new WeakMap();

/** switcher is the ‹ i / n › of a point.
 * @param {Point} p */
function switcher(p) {
  const box = el('span', 'versions');
  box.dataset.testid = 'versions';
  box.setAttribute('role', 'group');
  box.setAttribute('aria-label', 'Versions of this message');
  const prev = button('‹', 'version-step');
  prev.dataset.action = 'version-prev';
  prev.dataset.testid = 'version-prev';
  prev.setAttribute('aria-label', 'Previous version');
  const label = el('span', 'version-label', `${p.current + 1} / ${p.versions.length}`);
  label.dataset.testid = 'version-label';
  const next = button('›', 'version-step');
  next.dataset.action = 'version-next';
  next.dataset.testid = 'version-next';
  next.setAttribute('aria-label', 'Next version');
  for (const b of [prev, next]) b.tabIndex = -1;
  prev.disabled = p.current === 0;
  next.disabled = p.current === p.versions.length - 1;
  box.append(prev, label, next);
  return box;
}

/** decorate puts the switcher on each message with versions.
 * @param {Record<string, Point>} points */
function decorate(points) {
  for (const [id, p] of Object.entries(points)) {
    const article = messageByID(id);
    const head = article?.querySelector('.message-head');
    if (!article || !head || p.versions.length < 2) continue;
    head.querySelector('.versions')?.remove();
    shown.set(article, p);
    const box = switcher(p);
    // In the tab order when its message is the current one (messagekeys.js).
    for (const b of box.querySelectorAll('button')) b.tabIndex = article.tabIndex === 0 ? 0 : -1;
    const after = head.querySelector('time') || head.querySelector('.who');
    if (after) after.after(box);
    else head.prepend(box);
  }
}

/** @param {HTMLElement} trigger @param {number} step */
async function stepVersion(trigger, step) {
  const article = messageOf(trigger);
  const p = article && shown.get(article);
  const to = p?.versions[p.current + step];
  if (!article || !to) return;
  setBusy(trigger, true);
  await openVersion(to.url, placeOf(article), to.message);
}

/** initVersions shows the versions of the session's messages, and again
 * as messages arrive (a version's first message is written as its turn
 * runs, and an answer's rendering is replaced when it ends), until
 * signal is aborted.
 * @param {AbortSignal} signal */
export function initVersions(signal) {
  const messages = document.getElementById('messages');
  if (!sessionID() || !messages) return;
  /** @type {Record<string, Point>} */
  let points = {};
  let asking = false;
  let again = false;
  const load = async () => {
    if (asking) {
      again = true;
      return;
    }
    asking = true;
    try {
      const v = await api('GET', sessionURL('versions'), undefined, { signal });
      points = v?.points || {};
      decorate(points);
    } catch {
      // Versions are a help to read by; the conversation is whole without.
    } finally {
      asking = false;
      if (again && !signal.aborted) {
        again = false;
        load();
      }
    }
  };
  load();
  const idOf = (/** @type {Element} */ m) => /** @type {HTMLElement} */ (m).dataset.messageId || '';
  const seen = new Set([...messages.querySelectorAll(messageSel)].map(idOf));
  const watch = new MutationObserver((records) => {
    let fresh = false;
    let redrawn = false;
    for (const r of records) {
      for (const n of r.addedNodes) {
        if (!(n instanceof HTMLElement)) continue;
        for (const m of n.matches(messageSel) ? [n] : n.querySelectorAll(messageSel)) {
          const mid = idOf(m);
          if (!mid) continue;
          if (!seen.has(mid)) fresh = true;
          else if (points[mid] && !m.querySelector('.versions')) redrawn = true;
          seen.add(mid);
        }
      }
    }
    if (fresh) load();
    else if (redrawn) decorate(points);
  });
  watch.observe(messages, { childList: true, subtree: true });
  signal.addEventListener('abort', () => {
    watch.disconnect();
    closeMenus();
  });
}

/** The click actions of this module, for the page's dispatcher. */
export const versionActions = {
  'edit-message': editMessage,
  'regenerate-message': regenerateMessage,
  'regenerate-with': regenerateWith,
  'version-refused': versionRefused,
  'version-prev': (/** @type {HTMLElement} */ b) => stepVersion(b, -1),
  'version-next': (/** @type {HTMLElement} */ b) => stepVersion(b, 1),
};
