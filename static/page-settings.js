// The entry of the settings page (web/layout.templ picks it): its forms
// (settings.js) and the New session dialog.

import { onActions } from './actions.js';
import { initTimes } from './times.js';
import { initNewSession, openNewSession } from './newsession.js';
import { initSettings } from './settings.js';
import { initSwitcher } from './palette.js';
import { initShortcuts } from './shortcuts.js';
import { initTheme } from './theme.js';

onActions({ 'new-session': openNewSession });
initTimes();
initNewSession();
initSettings();
initTheme();
initShortcuts();
initSwitcher();
