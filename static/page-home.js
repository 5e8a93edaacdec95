// The entry of the home and archived pages (web/layout.templ picks it): a
// listing of sessions (rows.js) and the New session dialog. Entries are
// the top layer of the tab's modules: nothing imports them, and they are
// the only modules that act when loaded (static/imports_test.go).

import { onActions } from './actions.js';
import { initTimes } from './times.js';
import { initNewSession, openNewSession } from './newsession.js';
import { initSearch, onKey, rowActions } from './rows.js';
import { initOrganise } from './organise.js';
import { initSwitcher } from './palette.js';
import { initShortcuts } from './shortcuts.js';
import { initTheme } from './theme.js';

onActions({ ...rowActions, 'new-session': openNewSession });
document.addEventListener('keydown', onKey);
initTimes();
initNewSession();
initSearch();
initOrganise();
initTheme();
initShortcuts();
initSwitcher();
