// A search box over a list of session rows, shared by the home page and the
// session page's sidebar. As the person types, the rows the server renders
// for the query (title, model and ID matches) replace the list's children,
// then what the text search finds fills a box below them. Markup it acts
// on: the input, the list (aria-busy while a fetch runs) and the hits box
// (data-partial-url, /partials/search), whose hits come by session: a
// group's "N more in this session" button (data-url) swaps in the group
// with every hit.

import { fetchFragment } from './http.js';
import { isAbort } from './dom.js';

// searchDelay is how long typing must pause before a search runs.
const searchDelay = 150;

export class Search {
  // rowsURL(q) is the rows fragment for query q; onError(message) says a
  // failure; onRows(q), when given, runs once the rows for q are in.
  /**
   * @param {object} o
   * @param {HTMLInputElement | null} o.input
   * @param {Element} o.list
   * @param {HTMLElement | null} [o.hits]
   * @param {(q: string) => URL} o.rowsURL
   * @param {(message: string) => void} [o.onError]
   * @param {(q: string) => void} [o.onRows]
   * @param {() => boolean} [o.held] true while the rows must stay as they
   *   are (a row's menu open, a title edited in place): a refresh then
   *   waits, and o.onHeld is told, to ask for it again once they are free
   * @param {() => void} [o.onHeld]
   */
  constructor({ input, list, hits, rowsURL, onError, onRows, held, onHeld }) {
    this.input = input;
    this.list = list;
    this.hits = hits;
    this.rowsURL = rowsURL;
    this.onError = onError;
    this.onRows = onRows;
    this.held = held;
    this.onHeld = onHeld;
    // request is the fetch about to replace or extend the list: a newer
    // one aborts it, so only the latest query's rows ever land.
    /** @type {AbortController | null} */
    this.request = null;
  }

  get query() {
    return this.input ? this.input.value.trim() : '';
  }

  get busy() {
    return this.request !== null;
  }

  // start claims the list for a fetch, aborting the one before.
  start() {
    this.request?.abort();
    this.request = new AbortController();
    this.list.setAttribute('aria-busy', 'true');
    return this.request;
  }

  end(ctl) {
    if (this.request !== ctl) return;
    this.request = null;
    this.list.removeAttribute('aria-busy');
  }

  // bind runs the search as the person types, at once on Enter.
  bind() {
    const input = this.input;
    if (!input) return this;
    if (this.query) this.fillHits(this.query).catch(() => {}); // a reload with ?q=
    let timer = 0;
    input.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => this.run(), searchDelay);
    });
    input.form?.addEventListener('submit', (e) => {
      e.preventDefault();
      clearTimeout(timer);
      this.run();
    });
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && input.value === '') input.blur();
    });
    this.hits?.addEventListener('click', (e) => {
      const more = e.target instanceof Element ? e.target.closest('button.hit-more[data-url]') : null;
      if (more instanceof HTMLButtonElement) this.expand(more);
    });
    return this;
  }

  // expand replaces a group of hits with the same group holding every hit,
  // and moves focus to the first hit that was not shown, so a keyboard
  // goes on where "N more" was.
  async expand(button) {
    const group = button.closest('.hit-group');
    if (!group) return;
    const shown = group.querySelectorAll('.hit').length;
    button.disabled = true;
    try {
      const next = (await fetchFragment(new URL(button.dataset.url, location.href))).firstElementChild;
      if (!next || !group.isConnected) return;
      group.replaceWith(next);
      /** @type {HTMLElement | null} */ (next.querySelectorAll('.hit a')[shown])?.focus();
    } catch (err) {
      button.disabled = false;
      this.onError?.(`Could not show the other hits: ${err.message}`);
    }
  }

  // run shows the rows for the query, then the text hits.
  async run() {
    const ctl = this.start();
    const q = this.query;
    try {
      // Title, model and ID matches first, then what was said: the text
      // search reads every document, so its answer comes second.
      const hits = this.fillHits(q, ctl.signal);
      this.list.replaceChildren(await fetchFragment(this.rowsURL(q), ctl.signal));
      this.onRows?.(q);
      await hits;
    } catch (err) {
      if (!isAbort(err)) this.onError?.(`Search failed: ${err.message}`);
    } finally {
      this.end(ctl);
    }
  }

  // refresh fetches the rows again for the same query, keeping keyboard
  // focus on the row it was on: the listing changed under them. The text
  // hits stay as they are: they cost a read of every document, and a
  // change of the listing rarely changes what was said.
  async refresh(url = this.rowsURL(this.query)) {
    if (this.held?.()) {
      this.onHeld?.();
      return;
    }
    const focused = /** @type {HTMLElement | null | undefined} */ (document.activeElement?.closest('[data-session-id]'));
    const id = this.list.contains(focused) ? focused.dataset.sessionId : '';
    const ctl = this.start();
    try {
      const rows = await fetchFragment(url, ctl.signal);
      if (this.held?.()) {
        this.onHeld?.(); // a menu opened while the rows were on their way
        return;
      }
      this.list.replaceChildren(rows);
      if (id) /** @type {HTMLElement | null} */ (this.list.querySelector(`[data-session-id="${CSS.escape(id)}"] a`))?.focus({ preventScroll: true });
    } catch (err) {
      if (!isAbort(err)) this.onError?.(`Could not update the sessions: ${err.message}`);
    } finally {
      this.end(ctl);
    }
  }

  // fillHits fills the text hits for q, or empties them for an empty query.
  async fillHits(q, signal) {
    const box = this.hits;
    if (!box) return;
    if (!q) {
      box.replaceChildren();
      return;
    }
    const url = new URL(box.dataset.partialUrl, location.href);
    url.searchParams.set('q', q);
    box.replaceChildren(await fetchFragment(url, signal));
  }
}
