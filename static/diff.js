// The diff view: a unified diff drawn as web/diff.templ draws it, for an
// approval card (approvals.js), and the "Show all" button that unfolds a
// long diff wherever it is, the server's rendering on the page included.
//
//   [data-testid="diff"] > pre.diff [data-diff-rest]     the folded lines
//   [data-action="diff-toggle"][data-show-all]            the button
//
// The diff arrives as JSON and goes in through textContent.

import { button, el } from './dom.js';

// diffFold is how many lines of a diff show before "Show all" (web.DiffFold).
const diffFold = 40;

// diffKind is a diff line's class, as web.NewDiffView decides it: the file
// header is what comes before the first hunk, so a removed line that began
// with "--" is still a removed line.
function diffKind(line, inHunks) {
  if (line.startsWith('@@')) return 'hunk';
  if (!inHunks) return 'file';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  if (line.startsWith('\\')) return 'note';
  return 'context';
}

// diffView draws a unified diff as web/diff.templ does: each line marked,
// a long diff folded after diffFold lines behind a "Show all" button.
export function diffView(diff) {
  const box = el('div', 'diff-box');
  box.setAttribute('data-testid', 'diff');
  const pre = el('pre', 'diff');
  const lines = diff.replace(/\n$/, '').split('\n');
  let inHunks = false;
  let rest = null;
  lines.forEach((line, i) => {
    const kind = diffKind(line, inHunks);
    if (kind === 'hunk') inHunks = true;
    if (i === diffFold) {
      rest = el('span', 'diff-rest');
      rest.dataset.diffRest = '';
      rest.hidden = true;
      pre.append(rest);
    }
    (rest || pre).append(el('span', `line ${kind}`, `${line}\n`));
  });
  box.append(pre);
  if (rest) {
    const label = `Show all ${lines.length} lines (${lines.length - diffFold} more)`;
    const b = button(label, 'diff-toggle');
    b.dataset.action = 'diff-toggle';
    b.dataset.showAll = label;
    b.setAttribute('data-testid', 'diff-toggle');
    b.setAttribute('aria-expanded', 'false');
    box.append(b);
  }
  return box;
}

// toggleDiff folds and unfolds a long diff, on the page or in an approval.
export function toggleDiff(e) {
  const b = e.target.closest('[data-action="diff-toggle"]');
  const rest = b?.closest('[data-testid="diff"]')?.querySelector('[data-diff-rest]');
  if (!rest) return;
  rest.hidden = !rest.hidden;
  b.setAttribute('aria-expanded', String(!rest.hidden));
  b.textContent = rest.hidden ? b.dataset.showAll : 'Show fewer lines';
  if (rest.hidden) b.closest('[data-testid="diff"]').scrollIntoView({ block: 'nearest' });
}
