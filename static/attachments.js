// Images attached to the next message: chosen with the image button,
// pasted or dropped, uploaded at once to POST /api/images, shown as
// thumbnails that can be removed. composer.js sends their IDs with the
// text and keeps them in the draft.
//
//   [data-composer] [data-testid="image-button"] [data-testid="image-input"]
//   [data-composer] [data-attachments] > [data-testid="attachment"][data-state][data-sha]
//   #composer                               where images may be dropped

import { APIError, answer } from './http.js';
import { showError } from './alerts.js';
import { button, el, isAbort } from './dom.js';
import { attachments, composer, input, saveDraft } from './composer.js';
import { addDocument, initDocuments } from './documents.js';

// --- Images -------------------------------------------------------------------

const imageTypes = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

function attachmentEl(a) {
  const li = el('li', 'attachment');
  li.setAttribute('data-testid', 'attachment');
  li.dataset.state = a.state;
  li.title = a.name;
  const img = document.createElement('img');
  img.alt = a.name;
  img.decoding = 'async';
  const state = el('span', 'attachment-state', a.state === 'uploading' ? 'Uploading…' : '');
  const remove = button('×', 'attachment-remove');
  remove.setAttribute('aria-label', `Remove ${a.name}`);
  remove.addEventListener('click', () => {
    dropAttachment(a);
    input.focus();
  });
  li.append(img, state, remove);
  return li;
}

function showUploaded(a) {
  a.state = 'done';
  a.el.dataset.state = 'done';
  a.el.dataset.sha = a.sha;
  a.el.querySelector('img').src = `/images/${a.sha}`;
  a.el.querySelector('.attachment-state').textContent = '';
}

function dropAttachment(a) {
  if (a.kind === 'file') return; // documents.js keeps its own
  a.ctl?.abort();
  const i = attachments.indexOf(a);
  if (i >= 0) attachments.splice(i, 1);
  a.el.remove();
  saveDraft();
}

// addUploaded attaches an image the server already has (a saved draft).
export function addUploaded(sha, name) {
  if (attachments.some((a) => a.sha === sha)) return;
  const a = { name, sha, state: 'done', done: Promise.resolve(sha) };
  a.el = attachmentEl(a);
  showUploaded(a);
  attachments.push(a);
  composer.querySelector('[data-attachments]').append(a.el);
}

function uploadError(name, err) {
  if (err.status === 413) return `${name} is too large to attach (images up to 20 MiB).`;
  return `${name} could not be attached: ${err.message}`;
}

async function upload(a, file) {
  try {
    const res = await fetch('/api/images', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': file.type, Accept: 'application/json' },
      body: file,
      signal: a.ctl.signal,
    });
    const data = await answer(res);
    if (!data || typeof data.sha256 !== 'string') throw new APIError(res.status, 'the server sent no image ID');
    a.sha = data.sha256;
    if (attachments.some((o) => o !== a && o.sha === a.sha)) {
      dropAttachment(a); // the same image twice is sent once
      return null;
    }
    showUploaded(a);
    saveDraft();
    return a.sha;
  } catch (err) {
    if (isAbort(err)) return null;
    dropAttachment(a);
    showError(uploadError(a.name, err));
    return null;
  }
}

function addFiles(files) {
  for (const file of files) {
    const name = file.name || 'pasted image';
    if (!imageTypes.has(file.type)) {
      addDocument(file); // text, source and PDF files (documents.js)
      continue;
    }
    const a = { name, state: 'uploading', ctl: new AbortController() };
    a.el = attachmentEl(a);
    attachments.push(a);
    composer.querySelector('[data-attachments]').append(a.el);
    a.done = upload(a, file);
  }
}

function imageFiles(dataTransfer) {
  return [...(dataTransfer?.files || [])];
}

// onPaste attaches the images pasted into the composer.
function onPaste(e) {
  const files = [...(e.clipboardData?.items || [])]
    .filter((i) => i.kind === 'file')
    .map((i) => i.getAsFile())
    .filter(Boolean);
  if (files.length === 0) return;
  // An image copied from a page often comes with its address as text:
  // the image is what was meant.
  e.preventDefault();
  addFiles(files);
}

const hasFiles = (e) => [...(e.dataTransfer?.types || [])].includes('Files');

function initDrop(zone, signal) {
  let depth = 0;
  zone.addEventListener('dragenter', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth++;
    zone.classList.add('dragging');
  });
  zone.addEventListener('dragover', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
  });
  zone.addEventListener('dragleave', () => {
    depth = Math.max(0, depth - 1);
    if (depth === 0) zone.classList.remove('dragging');
  });
  zone.addEventListener('drop', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth = 0;
    zone.classList.remove('dragging');
    if (!input.disabled) addFiles(imageFiles(e.dataTransfer));
    input.focus();
  });
  // A file dropped beside the composer must not make the tab navigate
  // away to it.
  for (const type of ['dragover', 'drop']) {
    document.addEventListener(type, (e) => {
      if (hasFiles(e) && !zone.contains(e.target)) e.preventDefault();
    }, { signal });
  }
}

// initImages wires the image button, pasting and dropping.
/** @param {AbortSignal} signal */
export function initImages(root, signal) {
  input.addEventListener('paste', onPaste);
  const picker = root.querySelector('[data-testid="image-input"]');
  root.querySelector('[data-testid="image-button"]').addEventListener('click', () => picker.click());
  picker.addEventListener('change', () => {
    addFiles([...picker.files]);
    picker.value = '';
    input.focus();
  });
  initDocuments(root);
  initDrop(root.closest('#composer') || root, signal);
}
