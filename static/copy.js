// Copy buttons on code blocks. The server wraps every fenced block of a
// rendered message in <div class="code-block" data-lang="…"> (web/markdown.go);
// this adds a bar with the language and a Copy button to each, on the page
// and in messages that arrive later.

const copiedFor = 1500;

function decorate(block) {
  if (block.dataset.decorated) return;
  block.dataset.decorated = 'true';
  const bar = document.createElement('div');
  bar.className = 'code-bar';
  const lang = document.createElement('span');
  lang.className = 'code-lang';
  lang.textContent = block.dataset.lang || 'text';
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'code-copy';
  button.dataset.testid = 'copy-code';
  button.textContent = 'Copy';
  button.setAttribute('aria-label', `Copy the ${lang.textContent} code`);
  button.addEventListener('click', async () => {
    const code = block.querySelector('pre')?.textContent ?? '';
    try {
      await navigator.clipboard.writeText(code.replace(/\n$/, ''));
      button.textContent = 'Copied';
    } catch {
      button.textContent = 'Copy failed';
    }
    setTimeout(() => (button.textContent = 'Copy'), copiedFor);
  });
  bar.append(lang, button);
  block.prepend(bar);
}

function decorateAll(root) {
  if (root.matches?.('.code-block')) decorate(root);
  root.querySelectorAll?.('.code-block').forEach(decorate);
}

decorateAll(document);
new MutationObserver((records) => {
  for (const r of records) for (const n of r.addedNodes) if (n.nodeType === Node.ELEMENT_NODE) decorateAll(n);
}).observe(document.body, { childList: true, subtree: true });
