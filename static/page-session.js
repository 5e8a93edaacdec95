// The entry of a session page (web/layout.templ picks it). No dependencies
// and no inline handlers (the CSP allows only the tab's own files):
// everything it acts on is marked by the server's templates with data-*
// attributes.
//
//   <body data-page="session" data-session-id data-archived="true|false"
//         data-events="/api/sessions/{id}/events">
//
// HTML fragments come from the server, already sanitized, and are parsed
// through a <template>; text that arrives as JSON only ever goes in through
// textContent. The chat (composer, live turn) starts in chat.js, which
// names the modules it is made of.
//
// The modules are layers, and none imports one above it (a cycle is a
// lint failure: static/imports_test.go). At the bottom, leaves that know
// no other module of the tab: dom.js (elements, fragments), http.js,
// events.js, alerts.js (errors, Undo), stream.js (the event stream, the
// title), scroll.js, thread.js (the conversation's elements), composer.js
// (the composer's state), actions.js (the click dispatcher), times.js.
// Above them the parts of the page; then send.js and commands.js, which
// act on the composer; chat.js, which wires the chat; swap.js, which
// swaps one session's part of the page for another's; and on top one entry
// per page (page-home.js, page-session.js, page-settings.js), which
// nothing imports and which alone act when loaded.

import { onActions } from './actions.js';
import { initChat } from './chat.js';
import { showError } from './alerts.js';
import { openStream } from './stream.js';
import { initCompaction } from './compaction.js';
import { initNewSession, openNewSession } from './newsession.js';
import { initSidebar } from './sidebar.js';
import { initPanelDrawer } from './paneldrawer.js';
import { forkMessage } from './lineage.js';
import { highlight, initHighlight } from './highlight.js';
import { initMessageKeys } from './messagekeys.js';
import { initCopy } from './copy.js';
import { initTimes } from './times.js';
import { initThreads, loadEarlier, loadEarlierOnScroll } from './earlier.js';
import { rowActions } from './rows.js';
import { initSwap } from './swap.js';
import { initVersions, versionActions } from './versions.js';
import { initOrganise } from './organise.js';
import { initShortcuts } from './shortcuts.js';
import { initTheme } from './theme.js';
import { noteVisit } from './recent.js';

onActions({
  // An archived session's banner restores or deletes it (rows.js).
  restore: rowActions.restore,
  'delete-ask': rowActions['delete-ask'],
  'delete-cancel': rowActions['delete-cancel'],
  delete: rowActions.delete,
  'load-earlier': loadEarlier,
  'new-session': openNewSession,
  'fork-message': (el) => forkMessage(el, showError),
  ...versionActions,
});
// The page's own parts, kept while sessions are swapped in and out of it
// (swap.js): they act on the header, the sidebar, or the whole document
// as it is at the moment.
initTimes();
initNewSession();
initSidebar(showError);
initOrganise(); // the sidebar's row menus
initThreads();
initCopy();
initHighlight();
initTheme();
initShortcuts();
// The parts of the session shown, started again with each session swapped
// in; signal ends the last one's.
initSwap((signal) => {
  noteVisit(document.body.dataset.sessionId || '');
  initPanelDrawer(signal);
  initMessageKeys();
  openStream(signal);
  initChat(signal);
  initCompaction(signal);
  loadEarlierOnScroll(signal);
  highlight();
  initVersions(signal);
});
