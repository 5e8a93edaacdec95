// The entry of the Import page (web/layout.templ picks it): its forms and
// progress (import.js) and the New session dialog.

import { onActions } from './actions.js';
import { initNewSession, openNewSession } from './newsession.js';
import { initImport } from './import.js';
import { initSwitcher } from './palette.js';
import { initShortcuts } from './shortcuts.js';
import { initTheme } from './theme.js';

onActions({ 'new-session': openNewSession });
initNewSession();
initImport();
initTheme();
initShortcuts();
initSwitcher();
