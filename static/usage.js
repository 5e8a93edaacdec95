// Usage, cost and model of a session page: the session's token counts in
// the side panel with an estimated cost, the cost on each turn's usage
// line, and the model's name, which the estimate depends on.
//
//   [data-testid="session-usage"][data-input][data-output][data-cache-read][data-cache-write]
//   [data-testid="session-model"][data-model]
//
// The figures are the server's (turn.end); the cost is only an estimate
// made here from list prices.

import { el } from './dom.js';

const count = new Intl.NumberFormat('en-US');

// usageText matches web.UsageView.Text: "in 1,234 · out 56 · cache 1,000".
function usageText(u) {
  const read = u.cache_read_input_tokens || 0;
  const write = u.cache_creation_input_tokens || 0;
  const parts = [`in ${count.format(u.input_tokens || 0)}`, `out ${count.format(u.output_tokens || 0)}`];
  if (read || write) parts.push(`cache ${count.format(read)}`);
  if (write) parts.push(`cache write ${count.format(write)}`);
  return parts.join(' · ');
}

// prices are list prices in US dollars per million tokens: input, output,
// cache read, cache write. Only an estimate: providers change prices and a
// local or proxied model may cost nothing. First match wins; a model not
// here gets tokens only.
/** @type {Array<[RegExp, number, number, number, number]>} */
const prices = [
  [/claude-opus-4-[5-9]/, 5, 25, 0.5, 6.25],
  [/opus/, 15, 75, 1.5, 18.75],
  [/sonnet/, 3, 15, 0.3, 3.75],
  [/haiku-4/, 1, 5, 0.1, 1.25],
  [/haiku/, 0.8, 4, 0.08, 1],
  [/gpt-4\.1-mini/, 0.4, 1.6, 0.1, 0],
  [/gpt-4\.1/, 2, 8, 0.5, 0],
  [/gpt-4o-mini/, 0.15, 0.6, 0.075, 0],
  [/gpt-4o/, 2.5, 10, 1.25, 0],
];

function estimateCost(model, u) {
  const row = prices.find(([re]) => re.test(model || ''));
  if (!row) return null;
  const [, inp, out, read, write] = row;
  return (
    ((u.input_tokens || 0) * inp +
      (u.output_tokens || 0) * out +
      (u.cache_read_input_tokens || 0) * read +
      (u.cache_creation_input_tokens || 0) * write) /
    1e6
  );
}

function costText(cost) {
  return cost < 0.01 ? '< $0.01' : `≈ $${cost.toFixed(2)}`;
}

const costNote = 'Estimated from list prices for the model family; your bill may differ.';

// usageLine fills box with the usage and, when the model's family is known,
// an estimated cost.
export function usageLine(box, u) {
  box.replaceChildren(usageText(u));
  const cost = estimateCost(currentModel(), u);
  if (!cost) return; // unknown family, or nothing used yet
  const c = el('span', 'cost', ` · ${costText(cost)}`);
  c.title = costNote;
  box.append(c);
}

function sessionUsageEl() {
  return /** @type {HTMLElement | null} */ (document.querySelector('[data-testid="session-usage"]'));
}

export function setSessionUsage(u) {
  const box = sessionUsageEl();
  if (!box) return;
  box.dataset.input = String(u.input_tokens || 0);
  box.dataset.output = String(u.output_tokens || 0);
  box.dataset.cacheRead = String(u.cache_read_input_tokens || 0);
  box.dataset.cacheWrite = String(u.cache_creation_input_tokens || 0);
  usageLine(box, u);
  if (box.querySelector('.cost')) box.append(el('span', 'estimate', ' (estimate)'));
}

export function renderSessionUsage() {
  const box = sessionUsageEl();
  if (!box) return;
  const n = (k) => Number(box.dataset[k]) || 0;
  setSessionUsage({
    input_tokens: n('input'),
    output_tokens: n('output'),
    cache_read_input_tokens: n('cacheRead'),
    cache_creation_input_tokens: n('cacheWrite'),
  });
}

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
  renderSessionUsage();
}

// --- /usage -------------------------------------------------------------------

// usageSummary is what /usage shows: the last turn's tokens (its usage
// line in the conversation, cost included) and the session's (the side
// panel's figure), as [label, text] rows.
/** @returns {Array<[string, string]>} */
export function usageSummary() {
  const lines = document.querySelectorAll('#messages [data-testid="turn-usage"]');
  const last = lines[lines.length - 1];
  const session = sessionUsageEl();
  return [
    ['Last turn', last?.textContent?.trim() || 'none since this page was opened'],
    ['Session', session?.textContent?.trim() || 'in 0 · out 0'],
    ['Model', currentModel() || 'default'],
  ];
}
