// Copying, one module for every copy button of the page:
//
// - Code blocks. The server wraps every fenced block of a rendered message
//   in <div class="code-block" data-lang="…"> led by a bar with the
//   language and a Copy button (web/markdown.go); this copies.
// - Messages. The head of a message with words has a
//   [data-action="copy-message"] button (web/message.templ; a message that
//   streamed in gets it with its rendering, in message.end). Its Markdown
//   source is not in the page: it is fetched from
//   GET /api/sessions/{id}/messages/{message}/markdown.
//
//   <body data-session-id>
//   [data-testid="message"][data-message-id] [data-action="copy-message"]

const copiedFor = 1500;

// feedback says on the button how the copy went, for a moment.
function feedback(button, ok) {
  const label = button.dataset.label || button.textContent;
  button.dataset.label = label;
  button.textContent = ok ? 'Copied' : 'Copy failed';
  clearTimeout(button.copyTimer);
  button.copyTimer = setTimeout(() => {
    button.textContent = label;
  }, copiedFor);
}

// --- Code blocks ----------------------------------------------------------

// copyCode puts the code of the block whose Copy button was pressed on the
// clipboard. The server writes the bar (web/markdown.go writeCodeBar), so
// no block changes height when this script runs.
async function copyCode(button) {
  const code = button.closest('.code-block')?.querySelector('pre')?.textContent ?? '';
  try {
    await navigator.clipboard.writeText(code.replace(/\n$/, ''));
    feedback(button, true);
  } catch {
    feedback(button, false);
  }
}

// --- Messages -------------------------------------------------------------

function markdownURL(button) {
  const session = document.body.dataset.sessionId;
  const message = button.closest('[data-testid="message"]')?.dataset.messageId;
  if (!session || !message) return '';
  return `/api/sessions/${encodeURIComponent(session)}/messages/${encodeURIComponent(message)}/markdown`;
}

async function markdownOf(url) {
  const res = await fetch(url, { credentials: 'same-origin', headers: { Accept: 'text/plain' } });
  if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
  return res.text();
}

// copyMessage puts a message's Markdown on the clipboard. The clipboard is
// written at once with the text still to come (a ClipboardItem of a
// promise), so the write keeps the click's user activation: Safari refuses
// a write that starts after a fetch. Where that is not supported, the text
// is written once it came.
async function copyMessage(button) {
  const url = markdownURL(button);
  if (!url) return;
  const text = markdownOf(url);
  text.catch(() => {}); // handled below, whichever way the write goes
  let ok = false;
  try {
    if (typeof ClipboardItem !== 'function' || !navigator.clipboard.write) throw new Error('no ClipboardItem');
    const blob = text.then((t) => new Blob([t], { type: 'text/plain' }));
    await navigator.clipboard.write([new ClipboardItem({ 'text/plain': blob })]);
    ok = true;
  } catch {
    try {
      await navigator.clipboard.writeText(await text);
      ok = true;
    } catch {
      ok = false;
    }
  }
  feedback(button, ok);
}

function onCopyClick(e) {
  if (!(e.target instanceof Element)) return;
  const button = e.target.closest('[data-action="copy-message"]');
  if (button) copyMessage(button);
  const code = e.target.closest('.code-block .code-copy');
  if (code) copyCode(code);
}

// initCopy makes every Copy button of the page work (a message's, a
// code block's), present and to come.
export function initCopy() {
  document.addEventListener('click', onCopyClick);
}
