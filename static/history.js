// Input history: in a composer that is empty (or shows a message it
// recalled, unchanged), ↑ puts in the person's previous message of this
// session and ↓ the next one, as a shell does; past the newest it is
// empty again. The messages are the ones the page shows, newest last.
//
//   #messages [data-testid="message"][data-role="user"].human
//     .command-typed (a custom command as typed) | .plain

/** @type {HTMLTextAreaElement | null} */
let area = null;
let index = -1; // into the list, from the newest; -1: not walking
let shown = ''; // the text the walk put in the composer

/** resetHistory starts over for a composer (a session swapped in).
 * @param {HTMLTextAreaElement} input */
export function resetHistory(input) {
  area = input;
  index = -1;
  shown = '';
}

// sent is the person's messages on the page, newest first.
function sent() {
  const out = [];
  const msgs = document.querySelectorAll('#messages [data-testid="message"][data-role="user"].human');
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i];
    const text = (m.querySelector('.command-typed') || m.querySelector('.plain'))?.textContent || '';
    if (text.trim() && text !== out[out.length - 1]) out.push(text);
  }
  return out;
}

/** onHistoryKey walks the history on ↑ and ↓ (no modifier); it reports
 * whether it took the key.
 * @param {KeyboardEvent} e */
export function onHistoryKey(e) {
  if (!area || (e.key !== 'ArrowUp' && e.key !== 'ArrowDown') || e.shiftKey || e.altKey || e.ctrlKey || e.metaKey) return false;
  const walking = index >= 0 && area.value === shown;
  if (!walking) {
    if (area.value !== '' || e.key === 'ArrowDown') return false;
    index = -1;
  }
  const list = sent();
  const next = e.key === 'ArrowUp' ? index + 1 : index - 1;
  if (next >= list.length) return true; // the oldest: stay on it
  index = next;
  shown = index >= 0 ? list[index] : '';
  area.value = shown;
  area.setSelectionRange(shown.length, shown.length);
  area.dispatchEvent(new Event('input', { bubbles: true })); // autosize, the draft
  return true;
}
