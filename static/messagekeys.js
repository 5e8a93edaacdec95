// The keyboard in the conversation: its messages are one tab stop, not
// two buttons each (Copy and Fork made 150 stops of a 75-message page).
//
// This is the roving tabindex of the WAI-ARIA Authoring Practices
// ("Developing a Keyboard Interface: Managing Focus Within Components
// Using a Roving tabindex"), over the messages as a feed's articles are:
// one message, the current one, has tabindex 0 and its actions are in the
// tab order; every other message and its actions have tabindex -1.
//
//   Tab into the conversation        the current message (the newest, until
//                                    the person moves)
//   ArrowDown / ArrowUp              the next / the previous message
//   PageDown / PageUp                the same, as the APG feed pattern has it
//   Home / End                       the first / the last message
//   Tab from a message               into its actions (Copy, Fork)
//
// The server renders every message and its head's buttons with tabindex
// -1 (web/message.templ), the streamed ones too; this module picks the
// current one.
//
//   .threads [data-testid="message"][tabindex]
//     .message-head button[data-action]          its actions

const messageSel = 'article[data-testid="message"]';
const actionSel = '.message-head button[data-action]';

/** @returns {HTMLElement | null} */
function threads() {
  return document.querySelector('.threads');
}

/** messages are those a person can see, in order: not undone, not in a
 * folded replaced answer or a closed earlier thread.
 * @returns {HTMLElement[]} */
function messages() {
  const all = /** @type {HTMLElement[]} */ ([...(threads()?.querySelectorAll(messageSel) || [])]);
  return all.filter((m) => m.checkVisibility());
}

/** @returns {HTMLElement | null} */
function current() {
  return threads()?.querySelector(`${messageSel}[tabindex="0"]`) || null;
}

/** @param {HTMLElement} m @param {boolean} on */
function setStop(m, on) {
  const t = on ? '0' : '-1';
  m.tabIndex = on ? 0 : -1;
  for (const b of m.querySelectorAll(actionSel)) b.setAttribute('tabindex', t);
}

/** makeCurrent moves the tab stop to m.
 * @param {HTMLElement} m */
function makeCurrent(m) {
  const was = current();
  if (was === m) return;
  if (was) setStop(was, false);
  setStop(m, true);
}

/** lastMessage is the newest message a person can see: found from the
 * end, since refresh runs while an answer streams.
 * @returns {HTMLElement | null} */
function lastMessage() {
  const all = threads()?.querySelectorAll(messageSel) || [];
  for (let i = all.length - 1; i >= 0; i--) {
    const m = /** @type {HTMLElement} */ (all[i]);
    if (m.checkVisibility()) return m;
  }
  return null;
}

// refresh keeps one stop: the newest message while the person is not in
// the conversation (new messages arrive, a turn is undone), or the one
// they chose while they are.
function refresh() {
  const cur = current();
  if (cur && cur.contains(document.activeElement) && cur.checkVisibility()) return;
  const last = lastMessage();
  if (last) makeCurrent(last);
  else if (cur) setStop(cur, false);
}

/** @param {KeyboardEvent} e */
function onKey(e) {
  const m = e.target instanceof HTMLElement && e.target.matches(messageSel) ? e.target : null;
  if (!m || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
  const list = messages();
  const i = list.indexOf(m);
  if (i < 0) return;
  const to = {
    ArrowDown: i + 1,
    PageDown: i + 1,
    ArrowUp: i - 1,
    PageUp: i - 1,
    Home: 0,
    End: list.length - 1,
  }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  const next = list[Math.max(0, Math.min(list.length - 1, to))];
  makeCurrent(next);
  next.focus({ preventScroll: true });
  reveal(next);
}

// reveal scrolls m into the part of the screen the header and the composer
// leave, when it is not all there already: focus's own scroll would stop
// as soon as m touched the window, under the composer pinned at its foot.
/** @param {HTMLElement} m */
function reveal(m) {
  const r = m.getBoundingClientRect();
  const top = Math.max(0, document.querySelector('header.site')?.getBoundingClientRect().bottom ?? 0);
  const bottom = document.getElementById('composer')?.getBoundingClientRect().top ?? window.innerHeight;
  if (r.top >= top && r.bottom <= bottom) return;
  // Its top first, where reading it starts (below the header: on a phone
  // style.css sets scroll-padding-top for it).
  m.scrollIntoView({ block: 'start' });
}

// A message clicked, or one of its buttons focused, becomes the current
// one: Tab then goes on from where the person is.
/** @param {FocusEvent} e */
function onFocus(e) {
  const m = e.target instanceof Element ? /** @type {HTMLElement | null} */ (e.target.closest(messageSel)) : null;
  if (m && threads()?.contains(m)) makeCurrent(m);
}

export function initMessageKeys() {
  const box = threads();
  if (!box) return;
  box.addEventListener('keydown', onKey);
  box.addEventListener('focusin', onFocus);
  // Messages come (a turn, Load earlier, an earlier thread opened) and go
  // (undo); their text grows deeper down, which needs nothing here. A
  // frame's changes are one refresh.
  let queued = false;
  new MutationObserver(() => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      refresh();
    });
  }).observe(box, { childList: true, subtree: true, attributes: true, attributeFilter: ['hidden', 'open'] });
  refresh();
}
