// The model of a session page, and the usage figures the server renders:
// each turn's usage line (turn.end carries it, rendered from the document
// as the page renders it), the side panel's totals (the panel event), and
// the /usage card (GET /s/{id}/usage). No figure or cost is made here.
//
//   [data-testid="session-model"][data-model]
//   [data-testid="turn-usage"][data-turn-start][data-after]

import { fetchFragment } from './http.js';

// --- Model --------------------------------------------------------------------

function modelEl() {
  return /** @type {HTMLElement | null} */ (document.querySelector('[data-testid="session-model"]'));
}

export function currentModel() {
  return modelEl()?.dataset.model || '';
}

export function setModel(model) {
  const dd = modelEl();
  if (!dd || typeof model !== 'string' || model === dd.dataset.model) return;
  dd.dataset.model = model;
  dd.textContent = model || 'default';
}

// --- Turn usage lines ---------------------------------------------------------

/** @param {ParentNode} root */
function linesIn(root) {
  return /** @type {HTMLElement[]} */ ([...root.querySelectorAll('[data-testid="turn-usage"]')]);
}

// placeLine puts a turn's usage line after the answer it follows (or the
// fold of that answer, when a retry replaced it), replacing the line of
// the same turn if the page shows one; at the end of box when that answer
// is not on the page.
/**
 * @param {HTMLElement} box
 * @param {HTMLElement} line
 */
export function placeLine(box, line) {
  const start = line.dataset.turnStart || '';
  for (const old of linesIn(box)) if (old.dataset.turnStart === start && old !== line) old.remove();
  const after = line.dataset.after || '';
  const answer = after ? box.querySelector(`[data-testid="message"][data-message-id="${CSS.escape(after)}"]`) : null;
  if (answer) (answer.closest('details.replaced') || answer).after(line);
  else box.append(line);
}

// placeLines places every usage line of a fragment the server rendered
// (the conversation fetched again after the stream was down).
/**
 * @param {HTMLElement} box
 * @param {ParentNode} frag
 */
export function placeLines(box, frag) {
  for (const line of linesIn(frag)) placeLine(box, line);
}

// --- /usage -------------------------------------------------------------------

// usageFigures is what /usage shows, as the server renders it from the
// document: the last turn's figures and the session's.
/** @param {string} sessionID */
export async function usageFigures(sessionID) {
  return fetchFragment(`/s/${encodeURIComponent(sessionID)}/usage`);
}
