// The entry of the Schedules page (web/layout.templ picks it): its list
// and form (schedules.js) and the New session dialog.

import { onActions } from './actions.js';
import { initTimes } from './times.js';
import { initNewSession, openNewSession } from './newsession.js';
import { askDelete, cancelDelete, deleteSchedule, initSchedules, runSchedule, toggleSchedule } from './schedules.js';
import { initSwitcher } from './palette.js';
import { initShortcuts } from './shortcuts.js';
import { initTheme } from './theme.js';

onActions({
  'new-session': openNewSession,
  'schedule-toggle': toggleSchedule,
  'schedule-run': runSchedule,
  'schedule-delete-ask': askDelete,
  'schedule-delete-cancel': cancelDelete,
  'schedule-delete': deleteSchedule,
});
initTimes();
initNewSession();
initSchedules();
initTheme();
initShortcuts();
initSwitcher();
