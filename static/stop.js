// Stop stops everything (issue 20, item 13): the running turn, and what
// waits in the queue, steers too. The server answers what it took out of
// the queue, and the tab that stopped puts it back in its composer, to
// send again, change or drop, as Claude Code does; other tabs only see
// their queue empty (the queued event). Esc and the Stop button (send.js)
// and /stop (commands.js) all come here.

import { showError } from './alerts.js';
import { stopTurn } from './status.js';
import { addUploaded } from './attachments.js';
import { addUploadedFile } from './documents.js';
import { autosize, input, saveDraft } from './composer.js';

/**
 * putBack puts what Stop took out of the queue into the composer, after
 * the draft, a paragraph each in the order it was sent, with its images.
 * @param {{text?: unknown, images?: unknown, files?: unknown}[]} unqueued
 */
export function putBack(unqueued) {
  const texts = [];
  for (const q of unqueued) {
    const text = typeof q?.text === 'string' ? q.text.trim() : '';
    if (text) texts.push(text);
    for (const sha of Array.isArray(q?.images) ? q.images : []) {
      if (typeof sha === 'string' && /^[0-9a-f]{64}$/.test(sha)) addUploaded(sha, 'image');
    }
    for (const f of Array.isArray(q?.files) ? q.files : []) addUploadedFile(f);
  }
  if (!texts.length) return;
  input.value = [input.value.trimEnd(), ...texts].filter(Boolean).join('\n\n');
  autosize();
  saveDraft();
  input.focus({ preventScroll: true });
  input.setSelectionRange(input.value.length, input.value.length);
}

// stopAll stops the turn and the queue (Esc, the Stop button), and puts
// what was queued back in the composer.
export async function stopAll() {
  try {
    putBack(await stopTurn());
  } catch (err) {
    showError(`Could not stop the turn: ${err instanceof Error ? err.message : err}`);
  }
}
