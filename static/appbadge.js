// The installed app's badge: how many approvals wait on this session's
// page, shown on the app's icon (navigator.setAppBadge, where the browser
// has it: an installed app in Chromium, Safari on macOS). The title's
// "needs you" marker, "(!) ", is notify.js's: one marker in the title, not
// two that would push each other aside.
//
//   [data-approvals] > [data-testid="approval"]   the cards counted

/** @type {number} */
let shown = -1;

function count() {
  return document.querySelectorAll('[data-approvals] [data-testid="approval"]').length;
}

function update() {
  const n = count();
  if (n === shown) return;
  shown = n;
  document.body.dataset.approvalsWaiting = String(n);
  const nav = /** @type {any} */ (navigator);
  if (typeof nav.setAppBadge !== 'function') return;
  (n > 0 ? nav.setAppBadge(n) : nav.clearAppBadge()).catch(() => {
    // not installed, or the browser refuses: the title marker still tells
  });
}

/** initAppBadge follows the approval cards until signal is aborted (a
 * swap to another session, static/swap.js); the badge is cleared then.
 * @param {AbortSignal} signal */
export function initAppBadge(signal) {
  shown = -1;
  update();
  const watch = new MutationObserver(update);
  // The approvals' own box, not the whole page: streaming text changes
  // the page many times a second.
  const box = document.querySelector('[data-approvals]');
  if (box) watch.observe(box, { childList: true, subtree: true });
  signal.addEventListener('abort', () => {
    watch.disconnect();
    shown = -1;
    const nav = /** @type {any} */ (navigator);
    if (typeof nav.clearAppBadge === 'function') nav.clearAppBadge().catch(() => {});
  });
}
