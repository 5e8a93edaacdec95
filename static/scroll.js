// Scrolling of a session page. The page scrolls as a whole. While the
// reader is at the bottom, new text keeps them there; once they scroll up,
// nothing moves under them. Every module that adds to the conversation
// calls keepBottom after it has.
//
//   #messages    images in it that load late keep the bottom too
//   #composer    present: the page opens at its bottom (unless a #hash;
//                a #m-… link holds the page at its message: highlight.js)

let stick = true;

function nearBottom() {
  const s = document.scrollingElement;
  return s.scrollHeight - s.scrollTop - s.clientHeight < 80;
}

// keepBottom scrolls to the bottom if the reader was there.
export function keepBottom() {
  if (stick) window.scrollTo(0, document.scrollingElement.scrollHeight);
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
  keepBottom();
}

// lastTop is where the page was at the last scroll event. Only a move up
// lets go of the bottom: the browser also scrolls when text grows under
// the reader (scroll anchoring keeps what they see in place, which, with
// a block inserted at once, leaves them more than a screen from the new
// bottom), and that must not count as the reader leaving it.
let lastTop = 0;

export function initScroll() {
  lastTop = document.scrollingElement.scrollTop;
  window.addEventListener('scroll', () => {
    const top = document.scrollingElement.scrollTop;
    if (top < lastTop - 1) stick = nearBottom();
    else if (nearBottom()) stick = true;
    lastTop = top;
  }, { passive: true });
  // Images load after the text that holds them.
  document.getElementById('messages')?.addEventListener('load', keepBottom, true);
  if (location.hash.startsWith('#m-')) letGo();
  else if (!location.hash && document.getElementById('composer')) {
    window.scrollTo(0, document.scrollingElement.scrollHeight);
  }
}
