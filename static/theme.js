// The tab's colours: light, dark, or the system's. The choice is this
// browser's (localStorage "myco-theme"), set from Settings
// (web/theme.templ) or /theme; an inline script in every page's <head>
// (web/theme.go) puts it on <html data-theme> before the first paint, and
// style.css and chroma.css let [data-theme] win over the system's
// prefers-color-scheme. A leaf: it imports nothing.
//
//   <html data-theme="light|dark">          absent: the system's
//   [data-theme-choice] input[name=theme][value=system|light|dark]

const key = 'myco-theme';
const themes = ['system', 'light', 'dark'];

/** storedTheme is the theme chosen in this browser: light, dark or system. */
export function storedTheme() {
  let t = null;
  try {
    t = localStorage.getItem(key);
  } catch {
    // Storage turned off: the system's.
  }
  return t === 'light' || t === 'dark' ? t : 'system';
}

/** apply shows theme t on the page and in the Settings choice. @param {string} t */
function apply(t) {
  const root = document.documentElement;
  if (t === 'light' || t === 'dark') root.dataset.theme = t;
  else delete root.dataset.theme;
  for (const r of document.querySelectorAll('[data-theme-choice] input[name="theme"]')) {
    if (r instanceof HTMLInputElement) r.checked = r.value === t;
  }
}

/** setTheme keeps t (light, dark or system) and shows it. @param {string} t */
export function setTheme(t) {
  if (!themes.includes(t)) throw new Error(`the theme is light, dark or system, not “${t}”`);
  try {
    if (t === 'system') localStorage.removeItem(key);
    else localStorage.setItem(key, t);
  } catch {
    // Not kept (storage off), still shown in this page.
  }
  apply(t);
}

/** themeCommand runs /theme [light|dark|system] and says what is on. @param {string} arg */
export function themeCommand(arg) {
  const t = arg.trim().toLowerCase();
  if (t) setTheme(t);
  const now = storedTheme();
  return now === 'system' ? 'Theme: the system’s. /theme light or /theme dark picks one.' : `Theme: ${now}. /theme system follows the system again.`;
}

/** initTheme makes the Settings choice work, and follows a choice made
 * in another tab of this browser. */
export function initTheme() {
  apply(storedTheme());
  document.addEventListener('change', (e) => {
    const r = e.target;
    if (r instanceof HTMLInputElement && r.name === 'theme' && r.closest('[data-theme-choice]')) setTheme(r.value);
  });
  window.addEventListener('storage', (e) => {
    if (e.key === key || e.key === null) apply(storedTheme());
  });
}
