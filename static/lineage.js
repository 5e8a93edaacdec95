// Forking from the tab: the Fork button in the head of each message of
// the latest thread (web/message.templ), and the /fork and /rewind
// commands (commands.js). Each asks the server for a fork and opens it in
// this tab; where the fork ends is the server's to decide, on a turn
// boundary.
//
//   <body data-session-id>
//   [data-testid="message"][data-message-id] [data-action="fork-message"]

import { api } from './http.js';

function forkURL(session) {
  return `/api/sessions/${encodeURIComponent(session)}/fork`;
}

// forkAndOpen asks for a fork of this page's session ({} keeps every
// turn, {message}, {keep_turns} or {drop_turns} say where it ends) and
// opens it. It throws the server's error (an APIError) when refused.
export async function forkAndOpen(where) {
  const session = document.body.dataset.sessionId;
  if (!session) throw new Error('this page shows no session');
  const h = await api('POST', forkURL(session), where || {});
  const url = typeof h?.url === 'string' && h.url.startsWith('/s/') ? h.url : h?.id ? `/s/${encodeURIComponent(h.id)}` : '';
  if (!url) throw new Error('the server sent no session');
  location.assign(url);
}

// forkMessage forks at the message whose Fork button was clicked: the
// fork keeps that message's turn.
export async function forkMessage(button, showError) {
  const message = button.closest('[data-testid="message"]')?.dataset.messageId;
  if (!message) return;
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  try {
    await forkAndOpen({ message });
  } catch (err) {
    button.disabled = false;
    button.removeAttribute('aria-busy');
    showError(`Could not fork the session: ${err.message}`);
  }
}
