// The profile's listing feed (GET /api/events), shared by every myco tab
// of this browser. Browsers allow six HTTP/1.1 connections per origin, and
// each session tab already holds its own session stream: a listing stream
// per tab as well would leave room for three tabs. So one tab, the holder
// of the Web Lock "myco.listing", keeps the one EventSource and passes
// what it hears to the others on a BroadcastChannel; when that tab goes,
// its lock passes to another tab, which opens the stream in its turn.
//
// body[data-listing="open"] says the feed is live for this tab (tests
// wait for it). The same stream carries the settings file's banner
// (settings.changed), which every tab following it swaps in.

import { EV } from './events.js';

const body = document.body;
const refreshDelay = 150;
const channelName = 'myco.listing';

// followListing calls refresh, debounced, whenever the profile's listing
// changes: a session created, renamed, archived, restored, its status or
// its last activity. The snapshot a stream starts with is news too
// (changes may have been missed while no stream was open), except the
// first one of a tab that held the stream since its page loaded: the page
// was just rendered.
export function followListing(refresh) {
  let timer = 0;
  const soon = () => {
    clearTimeout(timer);
    timer = setTimeout(refresh, refreshDelay);
  };
  const open = () => {
    body.dataset.listing = 'open';
  };
  if (!('locks' in navigator) || typeof BroadcastChannel !== 'function') {
    holdStream(soon, open, null, true);
    return;
  }
  const channel = new BroadcastChannel(channelName);
  let leading = false;
  channel.addEventListener('message', (e) => {
    if (leading) {
      if (e.data === 'ping' && body.dataset.listing === 'open') channel.postMessage('open');
      return;
    }
    if (e.data === 'open') open();
    else if (e.data === 'changed') {
      open();
      soon();
    } else if (typeof e.data?.settings === 'string') showSettings(e.data.settings);
  });
  const lead = (fresh) => {
    leading = true;
    holdStream(soon, open, channel, fresh);
    return new Promise(() => {}); // held until this tab goes
  };
  // Free now: this tab holds the stream from the start, and its first
  // snapshot is not news. Otherwise wait in line for the holder to go.
  navigator.locks.request(channelName, { ifAvailable: true }, (lock) => {
    if (lock) return lead(true);
    navigator.locks.request(channelName, () => lead(false));
    return undefined;
  });
  channel.postMessage('ping'); // a tab already holding the stream says so
}

// holdStream opens the stream and tells this tab, and the others through
// channel, of every change.
function holdStream(soon, open, channel, fresh) {
  const source = new EventSource('/api/events');
  let skip = fresh;
  const changed = () => {
    soon();
    channel?.postMessage('changed');
  };
  source.addEventListener(EV.sessionsSnapshot, () => {
    if (!skip) changed();
    skip = false;
    open();
    channel?.postMessage('open');
  });
  for (const name of [EV.sessionAdded, EV.sessionChanged, EV.sessionRemoved]) source.addEventListener(name, changed);
  source.addEventListener(EV.settingsChanged, (e) => {
    showSettings(e.data);
    channel?.postMessage({ settings: e.data });
  });
}

// showSettings swaps in the banner of settings.json that a
// settings.changed event carries (server-rendered, as the page renders it).
function showSettings(raw) {
  const slot = document.querySelector('[data-settings-notice]');
  let html = '';
  try {
    html = JSON.parse(raw).html || '';
  } catch {
    return;
  }
  if (!slot) return;
  const t = document.createElement('template');
  t.innerHTML = html;
  slot.replaceChildren(t.content);
}
