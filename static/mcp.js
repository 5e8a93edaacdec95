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
