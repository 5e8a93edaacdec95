// The side panel's MCP servers (web/mcp.templ): a switch turns a server
// off or on for this session through POST /api/sessions/{id}/mcp; the
// server answers every tab with the panel event, which redraws the part.
import { showError } from './alerts.js';
import { api } from './http.js';

/** initMCP wires the switches until signal is aborted (another session
 * is swapped in).
 * @param {AbortSignal} signal */
export function initMCP(signal) {
  document.addEventListener('change', onChange, { signal });
  document.addEventListener('click', onClick, { signal });
}

/** Sign in (a server that asked for OAuth) opens the authorization
 * server's page in a new tab; it sends the browser back to myco's
 * callback page, and the panel event then shows the server connected.
 * Sign out forgets the sign-in.
 * @param {MouseEvent} e */
async function onClick(e) {
  const button = /** @type {HTMLElement | null} */ (/** @type {Element} */ (e.target).closest?.('[data-mcp-login], [data-mcp-logout]'));
  if (!(button instanceof HTMLButtonElement)) return;
  const server = button.dataset.server;
  if (!server) return;
  const name = encodeURIComponent(server);
  if (button.matches('[data-mcp-logout]')) {
    button.disabled = true;
    try {
      await api('POST', `/api/mcp/${name}/logout`);
    } catch (err) {
      showError(`Could not sign out of ${server}: ${err.message}`);
      button.disabled = false;
    }
    return;
  }
  // The tab is opened now, in the click, or a popup blocker stops it; it
  // is sent to the authorization server once myco has the address.
  const tab = window.open('', '_blank');
  if (tab) tab.opener = null;
  button.disabled = true;
  try {
    const { auth_url: url } = await api('POST', `/api/mcp/${name}/login`);
    if (tab) tab.location.href = url;
    else window.location.href = url;
  } catch (err) {
    tab?.close();
    showError(`Could not sign in to ${server}: ${err.message}`);
  } finally {
    button.disabled = false;
  }
}

/** @param {Event} e */
async function onChange(e) {
  const input = /** @type {HTMLInputElement} */ (e.target);
  if (!(input instanceof HTMLInputElement) || !input.matches('[data-mcp-switch]')) return;
  const part = /** @type {HTMLElement | null} */ (input.closest('[data-panel-part="mcp"]'));
  const id = part?.dataset.sessionId;
  const server = input.dataset.server;
  if (!id || !server) return;
  const on = input.checked;
  input.disabled = true;
  try {
    await api('POST', `/api/sessions/${encodeURIComponent(id)}/mcp`, { server, on });
  } catch (err) {
    input.checked = !on;
    showError(`Could not turn ${server} ${on ? 'on' : 'off'}: ${err.message}`);
  } finally {
    input.disabled = false;
  }
}
