// Scrolling of a session page. The page scrolls as a whole. While the
// reader is at the bottom, new text keeps them there; once they scroll up,
// nothing moves under them. Every module that adds to the conversation
// calls keepBottom after it has.
//
//   #messages    images in it that load late keep the bottom too
//   #composer    present: the page opens at its bottom (unless a #hash)

let stick = true;

function nearBottom() {
  const s = document.scrollingElement;
  return s.scrollHeight - s.scrollTop - s.clientHeight < 80;
}

// keepBottom scrolls to the bottom if the reader was there.
export function keepBottom() {
  if (stick) window.scrollTo(0, document.scrollingElement.scrollHeight);
}

// followBottom makes the page follow new text again, as whoever sends a
// message wants to see the answer come in.
export function followBottom() {
  stick = true;
  keepBottom();
}

export function initScroll() {
  window.addEventListener('scroll', () => {
    stick = nearBottom();
  }, { passive: true });
  // Images load after the text that holds them.
  document.getElementById('messages')?.addEventListener('load', keepBottom, true);
  if (!location.hash && document.getElementById('composer')) {
    window.scrollTo(0, document.scrollingElement.scrollHeight);
  }
}
