// Times as the reader reads them. The server writes times in the reader's
// zone once it knows it (a cookie this sets), else in UTC; the reader wants
// theirs, and "3 hours ago" must stay true while the tab stays open.
// Every page's entry calls initTimes.

const body = document.body;


const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
/** @type {Array<[Intl.RelativeTimeFormatUnit, number, number]>} */
const units = [
  ['minute', 60, 60],
  ['hour', 3600, 24],
  ['day', 86400, 30],
];

function relativeText(date) {
  const seconds = (date.getTime() - Date.now()) / 1000;
  if (Math.abs(seconds) < 60) return relative.format(0, 'second');
  for (const [unit, size, limit] of units) {
    const n = Math.round(seconds / size);
    if (Math.abs(n) < limit) return relative.format(n, unit);
  }
  return dateTime.format(date);
}

const shortDate = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });

// shortText is relativeText for a narrow column (the sidebar): "5m",
// "3h", "2d", then the date, as the server writes it first.
function shortText(date) {
  const seconds = (Date.now() - date.getTime()) / 1000;
  if (seconds < 60) return 'now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)}h`;
  if (seconds < 30 * 86400) return `${Math.floor(seconds / 86400)}d`;
  return shortDate.format(date);
}

// localText is a time as the server writes it in the reader's zone
// (web/format.go localFormat): the same text, so a page rendered for this
// zone keeps its times as they are and nothing after them moves.
function localText(date) {
  const p = (n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())} ${p(date.getHours())}:${p(date.getMinutes())}`;
}

function localizeTime(el) {
  const date = new Date(el.dateTime);
  if (Number.isNaN(date.getTime())) return;
  el.title = dateTime.format(date);
  const rel = el.dataset.relative;
  const text = rel === 'short' ? shortText(date) : rel !== undefined ? relativeText(date) : localText(date);
  if (el.textContent !== text) el.textContent = text;
  el.dataset.localized = '';
}

// rememberZone tells the server the reader's zone (server/zone.go), for
// the pages it renders from now on.
function rememberZone() {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (/^[A-Za-z0-9_+\/-]{1,64}$/.test(zone)) document.cookie = `zone=${zone}; path=/; max-age=31536000; samesite=strict`;
}

function localizeTimes(root) {
  if (root instanceof Element && root.matches('time[datetime]:not([data-localized])')) localizeTime(root);
  for (const el of root.querySelectorAll('time[datetime]:not([data-localized])')) localizeTime(el);
}

export function initTimes() {
  rememberZone();
  localizeTimes(document);
  // Whatever is added later (fragments, messages from the stream) is
  // localized as it arrives.
  new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.addedNodes) if (n instanceof Element) localizeTimes(n);
    }
  }).observe(body, { childList: true, subtree: true });
  setInterval(() => {
    for (const el of document.querySelectorAll('time[data-relative]')) localizeTime(el);
  }, 60_000);
}

