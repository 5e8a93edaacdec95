// The one click dispatcher of a page: elements marked data-action="name"
// run the page's action of that name. Each page's entry says which actions
// it has; a module only exports its actions.

/** setBusy marks an element as working (aria-busy), and disables a button.
 * @param {Element} el @param {boolean} busy */
export function setBusy(el, busy) {
  if (busy) el.setAttribute('aria-busy', 'true');
  else el.removeAttribute('aria-busy');
  if (el instanceof HTMLButtonElement) el.disabled = busy;
}

/** onActions runs actions[name](el) on a plain click of an element marked
 * data-action="name". A click with a modifier is left to the browser, so
 * "open in new tab" works; a busy element ignores clicks.
 * @param {Record<string, (el: HTMLElement) => unknown>} actions */
export function onActions(actions) {
  document.addEventListener('click', (e) => {
    if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const el = e.target instanceof Element ? /** @type {HTMLElement | null} */ (e.target.closest('[data-action]')) : null;
    const action = el && actions[el.dataset.action];
    if (!action || el.getAttribute('aria-busy') === 'true') return;
    e.preventDefault();
    action(el);
  });
}
