// The "Show all" button of a long diff, wherever the server rendered it
// (web/diff.templ): in a tool's outcome on the page, or in an approval
// card. It folds and unfolds the lines after the first web.DiffFold.
//
//   [data-testid="diff"] > pre.diff [data-diff-rest]     the folded lines
//   [data-action="diff-toggle"][data-show-all]            the button

// toggleDiff folds and unfolds a long diff, on the page or in an approval.
export function toggleDiff(e) {
  const b = e.target instanceof Element ? e.target.closest('[data-action="diff-toggle"]') : null;
  const rest = b?.closest('[data-testid="diff"]')?.querySelector('[data-diff-rest]');
  if (!rest) return;
  rest.hidden = !rest.hidden;
  b.setAttribute('aria-expanded', String(!rest.hidden));
  b.textContent = rest.hidden ? b.dataset.showAll : 'Show fewer lines';
  if (rest.hidden) b.closest('[data-testid="diff"]').scrollIntoView({ block: 'nearest' });
}
