// Small DOM and event helpers shared by the tab's modules. Nothing here
// knows about any page: it builds elements, reads an event's JSON and
// names two kinds of thing the modules ask about (a field being typed in,
// an aborted fetch).

// el makes an element; text, when given, goes in through textContent.
export function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

// button makes a <button type="button">, so that it never submits a form.
export function button(text, className) {
  const b = el('button', className, text);
  b.type = 'button';
  return b;
}

// isTyping says whether t takes typed text, where keys are the field's.
export function isTyping(t) {
  return t instanceof HTMLElement && (t.isContentEditable || t.matches('input, textarea, select'));
}

// parseData is an event's JSON data, or null when it is not JSON.
export function parseData(e) {
  try {
    return JSON.parse(e.data);
  } catch {
    return null;
  }
}

// isAbort says whether err is a fetch that was aborted on purpose.
export function isAbort(err) {
  return err instanceof DOMException && err.name === 'AbortError';
}

// fragment parses server HTML into nodes without running anything in it.
export function fragment(html) {
  const t = document.createElement('template');
  t.innerHTML = html;
  return t.content;
}
