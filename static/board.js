// The home page's board (web/board.templ): what needs the person, what
// works, what was done since they last looked. The server renders it;
// it is fetched again whenever the listing changes (rows.js follows the
// profile's feed), as a session starts or ends a turn, waits for an
// approval or fails.
//
//   #board[data-partial-url]

import { fetchFragment } from './http.js';
import { isAbort } from './dom.js';

let inFlight = null;

export async function refreshBoard() {
  const board = document.getElementById('board');
  const url = board?.dataset.partialUrl;
  if (!board || !url) return;
  inFlight?.abort();
  const ctl = new AbortController();
  inFlight = ctl;
  try {
    const next = (await fetchFragment(url, ctl.signal)).firstElementChild;
    if (next && !ctl.signal.aborted) document.getElementById('board')?.replaceWith(next);
  } catch (err) {
    // The rows say the same failure; the board keeps what it showed.
    if (!isAbort(err)) console.warn('board:', err);
  } finally {
    if (inFlight === ctl) inFlight = null;
  }
}
