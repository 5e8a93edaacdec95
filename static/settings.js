// The Settings page's forms post through fetch, not as a navigation: a
// navigation's POST carries "Origin: null" under the page's no-referrer
// policy, which the server's Origin check refuses. The server answers as
// it would a plain form: a redirect to the saved page, or the page again
// with each refused value beside its field, which replaces this one's.

const FORMS = '[data-testid="settings-form"], [data-testid="key-form"]';

/** @param {SubmitEvent} e */
async function onSubmit(e) {
  const form = /** @type {HTMLFormElement | null} */ (e.target instanceof HTMLFormElement ? e.target.closest(FORMS) : null);
  if (!form) return;
  e.preventDefault();
  const body = new URLSearchParams();
  for (const [k, v] of new FormData(form, e.submitter)) body.append(k, String(v));
  const res = await fetch(form.action, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { Accept: 'text/html' },
    body,
  });
  if (res.redirected) {
    location.assign(res.url);
    return;
  }
  const page = new DOMParser().parseFromString(await res.text(), 'text/html');
  const next = page.querySelector('main');
  const main = document.querySelector('main');
  if (!next || !main) {
    location.reload();
    return;
  }
  main.replaceWith(document.adoptNode(next));
  /** @type {HTMLElement | null} */ (document.querySelector('[aria-invalid="true"], [data-testid="settings-error"]'))?.focus();
}

export function initSettings() {
  if (document.body.dataset.page !== 'settings') return;
  document.addEventListener('submit', onSubmit);
}
