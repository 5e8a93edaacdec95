// The sessions a person opened lately: across tabs (localStorage
// "myco-recent", newest first), for the palette's order when nothing is
// typed; and in this tab (sessionStorage "myco-tab-sessions"), for Alt-`,
// back to the session the tab showed before. A leaf: it imports nothing.

const recentKey = 'myco-recent';
const tabKey = 'myco-tab-sessions';
const keep = 50;

/** @param {Storage} store @param {string} key @returns {string[]} */
function read(store, key) {
  try {
    const v = JSON.parse(store.getItem(key) || '[]');
    return Array.isArray(v) ? v.filter((x) => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/** @param {Storage} store @param {string} key @param {string[]} ids */
function write(store, key, ids) {
  try {
    store.setItem(key, JSON.stringify(ids.slice(0, keep)));
  } catch {
    // Storage full or off: the order is only a convenience.
  }
}

/** noteVisit records that session id is shown now. @param {string} id */
export function noteVisit(id) {
  if (!id) return;
  /** @type {[Storage, string][]} */
  const lists = [[localStorage, recentKey], [sessionStorage, tabKey]];
  for (const [store, key] of lists) {
    const ids = read(store, key);
    if (ids[0] === id) continue;
    write(store, key, [id, ...ids.filter((x) => x !== id)]);
  }
}

/** recentSessions are the sessions opened lately in this browser, newest first. */
export function recentSessions() {
  return read(localStorage, recentKey);
}

/** previousSession is the session this tab showed before the one shown
 * (here, or '' on a page that shows none); '' when there is none.
 * @param {string} here */
export function previousSession(here) {
  return read(sessionStorage, tabKey).find((id) => id !== here) || '';
}

/** forget drops a session that is gone (deleted, unknown) from both lists. @param {string} id */
export function forget(id) {
  write(localStorage, recentKey, read(localStorage, recentKey).filter((x) => x !== id));
  write(sessionStorage, tabKey, read(sessionStorage, tabKey).filter((x) => x !== id));
}

/** openSession shows session id: through a link, so that a session page
 * swaps it in place (swap.js), and any other page navigates.
 * @param {string} id */
export function openSession(id) {
  const a = document.createElement('a');
  a.href = `/s/${encodeURIComponent(id)}`;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
}
