// HTTP helpers of the tab, in one place: every module calls the server
// through these, so errors read the same everywhere.

// APIError is a failed API request: its status, the server's message and
// the whole JSON body (a 409 for a lock carries pid and url).
export class APIError extends Error {
  constructor(status, message, data) {
    super(message);
    this.status = status;
    this.data = data || {};
  }
}

/**
 * @param {string} method
 * @param {string | URL} url
 * @param {unknown} [data]
 * @param {{ signal?: AbortSignal }} [options]
 */
export async function api(method, url, data, { signal } = {}) {
  /** @type {RequestInit & { headers: Record<string, string> }} */
  const init = {
    method,
    credentials: 'same-origin',
    headers: { Accept: 'application/json' },
    signal,
  };
  if (method !== 'GET') {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(data ?? {});
  }
  return answer(await fetch(url, init));
}

export async function answer(res) {
  const text = await res.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      // not JSON: the status says enough
    }
  }
  if (!res.ok) {
    const msg = data && typeof data.error === 'string' && data.error ? data.error : `${res.status} ${res.statusText}`.trim();
    throw new APIError(res.status, msg, data);
  }
  return data;
}

// fetchFragment gets an HTML fragment the server renders (a page part).
export async function fetchFragment(url, signal) {
  const res = await fetch(url, {
    credentials: 'same-origin',
    headers: { Accept: 'text/html' },
    signal,
  });
  if (!res.ok) throw new Error(await errorText(res));
  const t = document.createElement('template');
  t.innerHTML = await res.text();
  return t.content;
}

// errorText is what a failed response says: the API's {"error": "..."},
// else its status.
export async function errorText(res) {
  if ((res.headers.get('Content-Type') || '').includes('application/json')) {
    try {
      const data = await res.json();
      if (data && typeof data.error === 'string' && data.error) return data.error;
    } catch {
      // not JSON after all: fall back to the status
    }
  }
  return `${res.status} ${res.statusText}`.trim();
}
