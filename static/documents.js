// Documents attached to the next message: text and source files and PDFs,
// chosen with the file button, pasted or dropped (attachments.js hands
// over whatever is not an image), uploaded at once to POST /api/files and
// shown as chips (type icon, name, size) that can be removed. They sit in
// composer.js's attachments with kind 'file'; send.js sends them as
// files: [{sha256, name}].
//
//   [data-composer] [data-testid="file-button"] [data-testid="file-input"]
//   [data-composer] [data-attachments] > [data-testid="file-attachment"][data-state][data-sha]

import { APIError, answer } from './http.js';
import { showError } from './alerts.js';
import { button, el, isAbort } from './dom.js';
import { attachments, composer, input, saveDraft } from './composer.js';

// The server's limits (session/files.go), checked here first so a person
// learns at once rather than after a long upload.
const maxPDF = 32 << 20;
const maxText = 1 << 20;

const codeExt = new Set(('go py js ts tsx jsx mjs rs c h cc cpp hpp java kt rb php cs swift sh bash zsh sql html css ' +
  'scss json yaml yml toml xml lua pl r scala zig templ').split(' '));

/** @param {number} n */
export function humanSize(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1 << 20) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1 << 20)).toFixed(1)} MB`;
}

/** @param {string} name @param {string} [type] */
function iconOf(name, type) {
  if (type === 'application/pdf' || /\.pdf$/i.test(name)) return 'pdf';
  const ext = (name.match(/\.([^.]+)$/)?.[1] || '').toLowerCase();
  return codeExt.has(ext) ? 'code' : 'text';
}

const glyphs = { pdf: 'PDF', code: '</>', text: 'TXT' };

function chipEl(a) {
  const li = el('li', 'attachment file-attachment');
  li.setAttribute('data-testid', 'file-attachment');
  li.dataset.state = a.state;
  li.dataset.icon = a.icon;
  li.title = `${a.name} (${humanSize(a.size)})`;
  const icon = el('span', 'file-chip-icon', glyphs[a.icon]);
  icon.setAttribute('aria-hidden', 'true');
  const name = el('span', 'file-chip-name', a.name);
  const size = el('span', 'file-chip-size', a.state === 'uploading' ? 'Uploading…' : humanSize(a.size));
  const remove = button('×', 'attachment-remove');
  remove.setAttribute('aria-label', `Remove ${a.name}`);
  remove.addEventListener('click', () => {
    dropDocument(a);
    input.focus();
  });
  li.append(icon, name, size, remove);
  return li;
}

function showUploaded(a) {
  a.state = 'done';
  a.el.dataset.state = 'done';
  a.el.dataset.sha = a.sha;
  a.el.querySelector('.file-chip-size').textContent = humanSize(a.size);
}

function dropDocument(a) {
  a.ctl?.abort();
  const i = attachments.indexOf(a);
  if (i >= 0) attachments.splice(i, 1);
  a.el.remove();
  saveDraft();
}

function place(a) {
  attachments.push(a);
  composer.querySelector('[data-attachments]').append(a.el);
}

// addUploadedFile attaches a file the server already has (a saved draft,
// a message taken back out of the queue).
/** @param {{sha?: unknown, sha256?: unknown, name?: unknown, size?: unknown, media_type?: unknown}} f */
export function addUploadedFile(f) {
  const sha = typeof f.sha === 'string' ? f.sha : f.sha256;
  if (typeof sha !== 'string' || !/^[0-9a-f]{64}$/.test(sha)) return;
  if (attachments.some((a) => a.sha === sha)) return;
  const name = typeof f.name === 'string' && f.name ? f.name : 'file';
  const size = typeof f.size === 'number' ? f.size : 0;
  const a = { kind: 'file', name, size, icon: iconOf(name, String(f.media_type || '')), sha, state: 'done', done: Promise.resolve(sha) };
  a.el = chipEl(a);
  showUploaded(a);
  place(a);
}

function uploadError(name, err) {
  if (err.status === 413) return `${name} is too large to attach: ${err.message}`;
  return `${name} could not be attached: ${err.message}`;
}

async function upload(a, file) {
  try {
    const res = await fetch(`/api/files?name=${encodeURIComponent(a.name)}`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/octet-stream', Accept: 'application/json' },
      body: file,
      signal: a.ctl.signal,
    });
    const data = await answer(res);
    if (!data || typeof data.sha256 !== 'string') throw new APIError(res.status, 'the server sent no file ID');
    a.sha = data.sha256;
    a.size = data.size;
    if (attachments.some((o) => o !== a && o.sha === a.sha)) {
      dropDocument(a); // the same file twice is sent once
      return null;
    }
    showUploaded(a);
    saveDraft();
    return a.sha;
  } catch (err) {
    if (isAbort(err)) return null;
    dropDocument(a);
    showError(uploadError(a.name, err));
    return null;
  }
}

// tooLarge says why a file is refused before it is sent, or ''.
/** @param {File} file */
function tooLarge(file, name) {
  const pdf = file.type === 'application/pdf' || /\.pdf$/i.test(name);
  if (pdf && file.size > maxPDF) return `${name} is too large to attach: PDFs may be up to ${humanSize(maxPDF)}.`;
  if (!pdf && file.size > maxText) return `${name} is too large to attach: text files may be up to ${humanSize(maxText)}.`;
  if (file.size === 0) return `${name} is empty.`;
  return '';
}

// addDocument uploads one file that is not an image; the server decides
// whether it is text or a PDF and refuses anything else, naming it.
/** @param {File} file */
export function addDocument(file) {
  const name = file.name || 'pasted text.txt';
  const why = tooLarge(file, name);
  if (why) {
    showError(why);
    return;
  }
  const a = { kind: 'file', name, size: file.size, icon: iconOf(name, file.type), state: 'uploading', ctl: new AbortController() };
  a.el = chipEl(a);
  place(a);
  a.done = upload(a, file);
}

// sentFiles are the files of a message being sent, as the API takes them,
// once their uploads are done.
export async function sentFiles(sent) {
  const docs = sent.filter((a) => a.kind === 'file');
  const shas = await Promise.all(docs.map((a) => a.done));
  return docs.filter((a, i) => shas[i]).map((a) => ({ sha256: a.sha, name: a.name }));
}

// initDocuments wires the file button.
/** @param {ParentNode} root */
export function initDocuments(root) {
  const picker = /** @type {HTMLInputElement | null} */ (root.querySelector('[data-testid="file-input"]'));
  const btn = root.querySelector('[data-testid="file-button"]');
  if (!picker || !btn) return;
  btn.addEventListener('click', () => picker.click());
  picker.addEventListener('change', () => {
    for (const f of [...(picker.files || [])]) addDocument(f);
    picker.value = '';
    input.focus();
  });
}
