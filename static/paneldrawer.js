// The session page's side panel (links, scratchpad, context, forks,
// export) on a narrow screen: a drawer from the right, opened by the
// header's Details button and closed by Escape, the backdrop or the
// button again. In the page's flow it would come after the composer, so
// following the conversation's end would scroll to the panel and take
// the composer and the newest text out of view. On a wide screen it is
// the column beside the conversation and the button is hidden.
//
//   <button data-testid="details-toggle" aria-controls="side-panel">  in the header
//   <div class="details-backdrop" hidden>
//   <aside id="side-panel">
//
// body[data-details="open"] says the drawer is open.

const body = document.body;
const narrow = matchMedia('(max-width: 60rem)');

/** initPanelDrawer wires the page's side panel until signal is aborted:
 * another session's page brings its own (static/swap.js).
 * @param {AbortSignal} signal */
export function initPanelDrawer(signal) {
  const panel = document.getElementById('side-panel');
  const toggle = /** @type {HTMLElement | null} */ (document.querySelector('[data-testid="details-toggle"]'));
  const backdrop = document.querySelector('.details-backdrop');
  if (!panel || !toggle) return;
  const isOpen = () => body.dataset.details === 'open';
  const set = (open, focus = true) => {
    if (open) body.dataset.details = 'open';
    else delete body.dataset.details;
    toggle.setAttribute('aria-expanded', String(open));
    if (backdrop instanceof HTMLElement) backdrop.hidden = !open;
    if (!focus) return;
    if (open) {
      panel.tabIndex = -1;
      panel.focus();
    } else toggle.focus();
  };
  if (isOpen()) set(false, false); // a drawer left open by the last session
  toggle.addEventListener('click', () => set(!isOpen()), { signal });
  backdrop?.addEventListener('click', () => set(false));
  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape' || !isOpen()) return;
    e.preventDefault();
    set(false);
  }, { signal });
  // Grown wide, the panel is a column again: nothing to close.
  narrow.addEventListener('change', () => set(false, false), { signal });
  // A link in the panel (a fork, the parent) leaves the page; the drawer
  // need not stay open behind a new tab either.
  panel.addEventListener('click', (e) => {
    const link = e.target instanceof Element && e.target.closest('a[href]');
    if (link && narrow.matches && e.button === 0 && !e.ctrlKey && !e.metaKey && !e.shiftKey) set(false, false);
  });
}
