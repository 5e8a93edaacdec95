// The arguments a command can take, for the / menu (commands.js) and the
// palette (palette.js): /model the models (GET /api/models), /resume the
// sessions with their titles, /think the levels and /personality the
// personas (the session's steering), /diff last and the folder's paths,
// /export and /theme their words. Each list is fetched once per time it
// is asked for and kept until forgetChoices (the palette's close, the
// menu's), so typing filters it without a request per key.
//
// score, the fuzzy match both lists use, is here too.

import { api } from './http.js';

/** @typedef {{value: string, label?: string, detail?: string}} Choice */

/** score rates how well query matches name as a subsequence: null when it
 * does not; otherwise higher for letters in runs and at the start of a
 * word, and for a shorter name.
 * @param {string} query @param {string} name @returns {number | null} */
export function score(query, name) {
  const q = query.toLowerCase();
  const n = name.toLowerCase();
  if (!q) return 0;
  let s = 0;
  let at = -1;
  for (const ch of q) {
    const i = n.indexOf(ch, at + 1);
    if (i < 0) return null;
    if (i === at + 1) s += 3; // contiguous with the letter before
    if (i === 0 || /[\s/_.:-]/.test(n[i - 1])) s += 5; // start of a word
    at = i;
  }
  return s - n.length / 100;
}

/** @type {Map<string, Promise<Choice[]>>} */
const cache = new Map();

/** forgetChoices drops the lists fetched: the next ask fetches anew. */
export function forgetChoices() {
  cache.clear();
}

const words = {
  export: ['md', 'json', 'html'],
  theme: ['light', 'dark', 'system'],
  init: ['reload'],
};

/** completes says whether /name has arguments to choose from. @param {string} name */
export function completes(name) {
  return ['model', 'resume', 'think', 'personality', 'diff', ...Object.keys(words)].includes(name);
}

/** sessionsList is GET /api/sessions, once per cache. @returns {Promise<any[]>} */
export function sessionsList() {
  let p = cache.get('sessions');
  if (!p) {
    p = api('GET', '/api/sessions').then((list) => (Array.isArray(list) ? list : []));
    cache.set('sessions', p);
  }
  return /** @type {Promise<any[]>} */ (p);
}

/** fetchChoices are what /name can take, for the session at sessionURL
 * (its API URL; '' on a page without one); typed narrows /diff's paths.
 * @param {string} name @param {string} typed @param {string} sessionURL @returns {Promise<Choice[]>} */
async function fetchChoices(name, typed, sessionURL) {
  if (words[name]) return words[name].map((value) => ({ value }));
  switch (name) {
    case 'model': {
      const data = await api('GET', '/api/models');
      const models = Array.isArray(data?.models) ? data.models : [];
      return [
        { value: 'default', detail: `the profile's default${typeof data?.default === 'string' && data.default ? `: ${data.default}` : ''}` },
        ...models.filter((m) => typeof m?.name === 'string').map((m) => ({ value: m.name, detail: m.context_window ? `${Math.round(m.context_window / 1000)}k context` : '' })),
      ];
    }
    case 'resume': {
      const here = document.body.dataset.sessionId;
      return (await sessionsList())
        .filter((s) => typeof s?.id === 'string' && s.id !== here && !s.damaged)
        .map((s) => ({ value: s.id, label: s.title || 'Untitled', detail: [s.name, s.cwd].filter(Boolean).join(' · ') }));
    }
    case 'think':
    case 'personality': {
      if (!sessionURL) return [];
      const s = await api('GET', `${sessionURL}/steering`);
      if (name === 'think') {
        const levels = Array.isArray(s?.levels) && s.levels.length ? s.levels : ['off', 'low', 'medium', 'high', 'max'];
        return [...levels, 'default'].map((value) => ({ value, detail: value === s?.effective ? 'now' : '' }));
      }
      const personas = Array.isArray(s?.personalities) ? s.personalities : [];
      return [...personas, 'off'].map((value) => ({ value, detail: value === (s?.personality || 'off') ? 'now' : '' }));
    }
    case 'diff': {
      const last = { value: 'last', detail: 'since the latest turn' };
      if (!sessionURL) return [last];
      const prefix = typed.includes('/') ? typed.slice(0, typed.lastIndexOf('/') + 1) : '';
      const r = await api('GET', `${sessionURL}/paths?${new URLSearchParams({ prefix })}`);
      const paths = Array.isArray(r?.paths) ? r.paths.filter((p) => typeof p === 'string') : [];
      return [last, ...paths.map((value) => ({ value }))];
    }
  }
  return [];
}

/** argumentChoices are the choices for /name's argument that match typed,
 * best first (in their own order when nothing is typed), at most limit.
 * @param {string} name @param {string} typed @param {string} sessionURL @param {number} [limit]
 * @returns {Promise<Choice[]>} */
export async function argumentChoices(name, typed, sessionURL, limit = 50) {
  if (!completes(name)) return [];
  // /diff's paths are asked for by folder: a new folder is a new list.
  const folder = name === 'diff' && typed.includes('/') ? typed.slice(0, typed.lastIndexOf('/') + 1) : '';
  const key = `${name} ${folder}`;
  let p = cache.get(key);
  if (!p) {
    p = fetchChoices(name, typed, sessionURL);
    cache.set(key, p);
    p.catch(() => cache.delete(key)); // a failed fetch is tried again
  }
  const all = await p;
  const ranked = [];
  for (const [i, c] of all.entries()) {
    const s = best(typed, [c.value, c.label || '']);
    if (s !== null) ranked.push({ c, s, i });
  }
  if (typed) ranked.sort((a, b) => b.s - a.s || a.i - b.i);
  return ranked.slice(0, limit).map((r) => r.c);
}

/** best is the best score of query against any of names, or null.
 * @param {string} query @param {string[]} names */
export function best(query, names) {
  let top = null;
  for (const n of names) {
    if (!n) continue;
    const s = score(query, n);
    if (s !== null && (top === null || s > top)) top = s;
  }
  return top;
}
