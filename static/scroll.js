// Scrolling of a session page. The page scrolls as a whole. While the
// reader is at the bottom, new text keeps them there; once they scroll up,
// nothing moves under them. Every module that adds to the conversation
// calls keepBottom after it has.
//
//   #messages    images in it that load late keep the bottom too
//   #composer    present: the page opens at its bottom (unless a #hash;
//                a #m-… link holds the page at its message: highlight.js)

import { button } from './dom.js';

let stick = true;
// below is the "↓ New messages" button, shown when something was added
// while the reader is away from the bottom; it takes them there.
/** @type {HTMLButtonElement | null} */
let below = null;

function showBelow(on) {
  if (below) below.hidden = !on;
}

// bottomTop is the scroll position of "the bottom": the page's own bottom,
// unless the side panel beside a short conversation is the taller column.
// Then it is the conversation's end (its composer) at the viewport's
// bottom: the page's bottom would hide the title and the top of the
// conversation to show the panel's last lines (web/inline.go opens the
// page at the same place).
function bottomTop() {
  const s = document.scrollingElement;
  const max = s.scrollHeight - s.clientHeight;
  const c = /** @type {HTMLElement | null} */ (document.querySelector('.conversation'));
  const side = /** @type {HTMLElement | null} */ (document.querySelector('.side'));
  if (!c || !side || side.offsetHeight <= c.offsetHeight) return max;
  return Math.max(0, Math.min(max, c.getBoundingClientRect().bottom + s.scrollTop - s.clientHeight));
}

// toBottom takes the page to the bottom, never up from below it: a reader
// reading the side panel under a short conversation stays there.
function toBottom() {
  const top = bottomTop();
  if (document.scrollingElement.scrollTop < top) window.scrollTo(0, top);
}

function nearBottom() {
  return document.scrollingElement.scrollTop > bottomTop() - 80;
}

// keepBottom scrolls to the bottom if the reader was there; otherwise it
// offers the way down, if what was added is out of view (a page that does
// not scroll, or a reader already at the bottom, has nothing below).
export function keepBottom() {
  if (stick) toBottom();
  else if (!nearBottom()) showBelow(true);
}

// letGo stops following the bottom: a link to a message (#m-…) shows that
// message, and new text must not pull the reader away from it until they
// scroll to the bottom themselves.
export function letGo() {
  stick = false;
}

// followBottom makes the page follow new text again, as whoever sends a
// message wants to see the answer come in.
export function followBottom() {
  stick = true;
  showBelow(false);
  keepBottom();
}

// lastTop is where the page was at the last scroll event. Only a move up
// lets go of the bottom: the browser also scrolls when text grows under
// the reader (scroll anchoring keeps what they see in place, which, with
// a block inserted at once, leaves them more than a screen from the new
// bottom), and that must not count as the reader leaving it.
let lastTop = 0;

/** initScroll follows the bottom of the session's page until signal is
 * aborted (another session swapped in: static/swap.js), which opens at
 * its own bottom.
 * @param {AbortSignal} signal */
export function initScroll(signal) {
  stick = true;
  below = null;
  lastTop = document.scrollingElement.scrollTop;
  window.addEventListener('scroll', () => {
    const top = document.scrollingElement.scrollTop;
    if (top < lastTop - 1) stick = nearBottom();
    else if (nearBottom()) stick = true;
    if (stick) showBelow(false);
    lastTop = top;
  }, { passive: true, signal });
  const composer = document.getElementById('composer');
  if (composer) {
    below = button('↓ New messages', 'new-below');
    below.dataset.testid = 'new-below';
    below.hidden = true;
    below.addEventListener('click', followBottom);
    composer.prepend(below);
  }
  // Images load after the text that holds them.
  document.getElementById('messages')?.addEventListener('load', keepBottom, true);
  if (location.hash.startsWith('#m-')) letGo();
  else if (!location.hash && document.getElementById('composer')) {
    toBottom();
    holdBottomWhileOpening(signal);
  }
}

// holdBottomWhileOpening keeps a page that opened at its bottom there
// while its messages' heights settle: a message off screen is laid out
// only when it nears the viewport (content-visibility in style.css), so
// the height the page opened with was partly guessed. Until the reader
// first acts, a change of the conversation's size takes the page to the
// bottom again, before the frame is painted. After that, growing content
// (a details opened) must not move the page under them.
function holdBottomWhileOpening(signal) {
  const conversation = document.querySelector('.conversation');
  if (!conversation) return;
  const settle = new ResizeObserver(() => {
    if (stick) toBottom();
  });
  settle.observe(conversation);
  const acts = ['pointerdown', 'keydown', 'wheel', 'touchstart'];
  const stop = () => {
    settle.disconnect();
    for (const t of acts) window.removeEventListener(t, stop, true);
  };
  for (const t of acts) window.addEventListener(t, stop, true);
  signal.addEventListener('abort', stop);
}
