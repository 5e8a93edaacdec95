// Slash commands typed in the composer ("/model", "/resume ID", …): the
// list that completes them as they are typed, running them, and the
// panels two of them open (the help, the list of models). The commands
// and their help are read from the help panel the server renders.
//
//   [data-composer] [data-command-help] [data-command][data-args] > dd
//   [data-composer] #command-list                  the completion list
//   [data-composer] [data-model-list]              the list of models
//   [data-composer] .composer-panel [data-close-panel]
//   [data-composer][data-retry-url][data-session-url]

import { APIError, api } from './http.js';
import { setTitle } from './stream.js';
import { showError } from './alerts.js';
import { el, fragment } from './dom.js';
import { forkAndOpen } from './lineage.js';
import { keepBottom } from './scroll.js';
import { stopTurn } from './status.js';
import { putBack } from './stop.js';
import { initPalette } from './palette.js';
import { steerActions } from './steer.js';
import { goalCommand } from './goal.js';
import { undoActions } from './undo.js';
import { buildCommand, planCommand } from './plan.js';
import { currentModel, setModel } from './usage.js';
import { personalityCommand, thinkCommand } from './thinking.js';
import { argumentChoices, completes, forgetChoices } from './completion.js';
import { themeCommand } from './theme.js';
import { clearComposer, composer, input, isSending, lockedText, note, restoreStash, saveDraft, setSending, urls } from './composer.js';

// --- Slash commands -----------------------------------------------------------

// commands are read from the help panel the server renders.
let commands = [];

// initCommands reads the commands and lets a panel's × close it.
/** @param {AbortSignal} signal */
export function initCommands(root, signal) {
  commands = readCommands();
  listed = [];
  active = 0;
  dismissed = '';
  initPalette(runCommand, signal);
  root.addEventListener('click', (e) => {
    if (e.target.closest('[data-close-panel]')) {
      closePanels();
      input.focus();
    }
  });
}

function readCommands() {
  return [...composer.querySelectorAll('[data-command-help] [data-command]')].map((c) => {
    // A custom command (data-custom, from .myco/commands and the like)
    // runs on the server; its argument-hint is the peers' ("[file]"),
    // which says nothing of whether it may be left out.
    const custom = c.dataset.custom !== undefined;
    return {
      name: c.dataset.command,
      args: c.dataset.args || '',
      // "[NAME]": the command also runs without it.
      optional: !custom && (c.dataset.args || '').startsWith('['),
      custom,
      help: c.querySelector('dd')?.textContent || '',
    };
  });
}

// parseCommand reads "/name arg" from the composer; null when the text is
// a message ("//x" is a message starting with "/x", and so is a path like
// "/etc/hosts …").
export function parseCommand(raw) {
  // Custom commands' names have digits, -, _ and : (frontend:test).
  const m = /^\/([a-z][a-z0-9_:-]*)(?:\s+([\s\S]*))?$/i.exec(raw.trim());
  if (!m) return null;
  return { name: m[1].toLowerCase(), arg: (m[2] || '').trim() };
}

// runCommand runs a parsed command; the composer is emptied unless it
// failed or says to keep the text (false).
export async function runCommand({ name, arg }, { fromPalette = false } = {}) {
  const run = commandActions[name] || customAction(name);
  if (!run) {
    showError(`There is no command /${name}. /help lists them; start with // to send a message that begins with /.`);
    return;
  }
  // What was typed while the command ran (the next message) stays; a
  // command run from the palette was never in the composer, whose draft
  // stays whole.
  const typed = input.value;
  setSending(true);
  try {
    const done = await run(arg);
    if (done !== false && !fromPalette) {
      clearComposer(typed);
      hideCommands();
      restoreStash();
    }
    // A command may have more to do once the composer is cleared of it
    // (/stop puts the queue back in).
    if (typeof done === 'function') done();
  } catch (err) {
    if (err instanceof APIError && err.status === 409 && err.data.pid) showError(lockedText(err.data), err.data.url);
    else showError(`/${name} failed: ${err.message}`);
  } finally {
    setSending(false);
  }
}

// customAction runs a custom command on the server, which sends its text,
// the arguments put in, as the person's message (server/live/custom.go);
// undefined when no custom command has that name.
function customAction(name) {
  if (!commands.some((c) => c.custom && c.name === name)) return undefined;
  return async (arg) => {
    await api('POST', `${urls.session}/commands/run`, { name, args: arg });
  };
}

function openSession(id) {
  location.assign(`/s/${encodeURIComponent(id)}`);
}

// lastOther is the most recently active session other than this one
// (/resume @last): the listing is newest first.
async function lastOther() {
  const list = await api('GET', '/api/sessions');
  const here = document.body.dataset.sessionId;
  const found = (Array.isArray(list) ? list : []).find((s) => typeof s?.id === 'string' && s.id !== here && !s.damaged);
  if (!found) throw new Error('there is no other session to resume');
  return found.id;
}

// turnsArg reads /rewind's N: how many of the last turns to leave out.
function turnsArg(arg) {
  if (!arg) return 1;
  if (!/^\d+$/.test(arg)) throw new Error(`say how many turns to leave out: /rewind 2, not “${arg}”`);
  return Number(arg);
}

// findSession asks the server which session an ID, the start of one, or
// a session's name (`myco run -n NAME`) means: the store decides, as it
// does for the CLI.
async function findSession(which) {
  let found;
  try {
    found = await api('GET', `/api/resolve?${new URLSearchParams({ id: which })}`);
  } catch (err) {
    if (err instanceof APIError && err.status === 404) throw new Error(`no session is named “${which}” or has an ID that starts with it`);
    if (err instanceof APIError && err.status === 409) throw new Error(`“${which}” is ambiguous: several sessions start with it; type more of the ID`);
    throw err;
  }
  if (typeof found?.id !== 'string') throw new Error('the server sent no session ID');
  return found.id;
}

async function patchSession(change) {
  return api('PATCH', urls.session, change);
}

async function chooseModel(name) {
  const h = await patchSession({ model: name });
  setModel(typeof h?.model === 'string' ? h.model : name);
  // A model taken as written (its provider could not list its models).
  const notice = typeof h?.notice === 'string' && h.notice ? ` (${h.notice})` : '';
  note(`Model: ${currentModel() || 'default'}${notice}`);
}

// listModels shows the server's /model panel: the models each configured
// provider serves and settings name, with window and price, and why a
// provider could not list its models.
async function listModels() {
  const data = await api('GET', '/api/models');
  const panel = composer.querySelector('[data-model-list]');
  panel.replaceChildren(fragment(typeof data?.html === 'string' ? data.html : ''));
  const current = currentModel() || data?.default;
  for (const b of panel.querySelectorAll('[data-model]')) {
    const name = b.dataset.model;
    if (name === current) b.setAttribute('aria-current', 'true');
    b.addEventListener('click', async () => {
      try {
        await chooseModel(name);
        closePanels();
        input.focus();
      } catch (err) {
        showError(`Could not switch the model: ${err.message}`);
      }
    });
  }
  openPanel(panel);
}

// listLSP shows the /lsp panel: the language servers found for this
// session, their states, and the ones not installed (server/api_lsp.go).
async function listLSP() {
  const data = await api('GET', `${urls.session}/lsp`);
  const panel = composer.querySelector('[data-lsp-list]');
  panel.replaceChildren(fragment(typeof data?.html === 'string' ? data.html : ''));
  openPanel(panel);
}

const commandActions = {
  stop: async () => {
    const unqueued = await stopTurn();
    return () => putBack(unqueued);
  },
  retry: async () => {
    await api('POST', urls.retry);
  },
  new: async () => {
    const h = await api('POST', '/api/sessions', {});
    if (!h?.id) throw new Error('the server sent no session ID');
    clearComposer();
    openSession(h.id);
  },
  resume: async (arg) => {
    if (!arg) throw new Error('say which session: /resume ID (the start of the ID is enough), /resume NAME, or /resume @last');
    const which = arg.split(/\s+/)[0];
    const id = which.toLowerCase() === '@last' ? await lastOther() : await findSession(which);
    clearComposer();
    openSession(id);
  },
  // /title alone says the title; /title TEXT renames.
  title: async (arg) => {
    if (!arg) {
      const h1 = document.getElementById('session-title');
      const t = h1?.textContent?.trim() || '';
      note(t && t !== h1?.dataset.untitled ? `The title is “${t}”. /title TEXT renames it.` : 'This session has no title yet. /title TEXT names it.');
      return;
    }
    const h = await patchSession({ title: arg });
    setTitle(typeof h?.title === 'string' ? h.title : arg);
  },
  model: async (arg) => {
    if (arg) await chooseModel(arg);
    else await listModels();
  },
  // /export [md|json|html]: the file downloads, as the panel's links do.
  export: (arg) => {
    const format = (arg || 'md').toLowerCase();
    if (!['md', 'json', 'html'].includes(format)) throw new Error('/export takes md, json or html (md when none)');
    const a = document.createElement('a');
    a.href = `${urls.session}/export?format=${format}`;
    a.download = '';
    a.hidden = true;
    document.body.append(a);
    a.click();
    a.remove();
  },
  // The fork opens in this tab (runCommand then empties the composer).
  fork: () => forkAndOpen({}),
  rewind: (arg) => forkAndOpen({ drop_turns: turnsArg(arg) }),
  // /compact TEXT: TEXT is what the summary is to keep.
  compact: async (arg) => {
    await api('POST', `${urls.session}/compact`, arg.trim() ? { focus: arg.trim() } : undefined);
  },
  // /init: the agent explores and proposes an AGENTS.md (its message
  // arrives through the stream, as a sent one); /init reload rereads.
  init: async (arg) => {
    if (!arg) {
      await api('POST', `${urls.session}/init`, {});
      return;
    }
    if (arg.toLowerCase() !== 'reload') throw new Error('/init takes nothing (the agent writes an AGENTS.md) or reload (read the instruction files again)');
    const r = await api('POST', `${urls.session}/instructions/reload`);
    const files = Array.isArray(r?.instructions) ? r.instructions.filter((f) => !f.same_as && !f.skipped) : [];
    // The skills are read again too (server/live/custom.go); the side
    // panel lists them.
    note(files.length === 0 ? 'No instruction file found: the agent has none. Skills read again.' : `Instructions read again: ${files.length} ${files.length === 1 ? 'file' : 'files'}, and the skills; the next request carries them.`);
  },
  // /session: where this session lives (GET …/location), to open its
  // file or folder, or name it to the CLI.
  session: async () => {
    const w = await api('GET', `${urls.session}/location`);
    note(`Session ${w?.id}${w?.name ? ` (${w.name})` : ''} · file ${w?.path}${w?.archived ? ' (archived)' : ''} · folder ${w?.cwd}`, true);
  },
  theme: (arg) => note(themeCommand(arg)),
  think: (arg) => thinkCommand(arg),
  personality: (arg) => personalityCommand(arg),
  goal: (arg) => goalCommand(arg),
  plan: (arg) => planCommand(arg),
  build: (arg) => buildCommand(arg),
  ...steerActions, // /steer, /queue, /btw, /usage
  ...undoActions, // /undo, /redo, /diff
  // /commands: the custom commands and where each came from, rendered
  // with the page (web/custom.templ).
  lsp: () => listLSP(),
  commands: () => {
    const panel = composer.querySelector('[data-custom-commands]');
    if (panel.hidden) openPanel(panel);
    else closePanels();
  },
  help: () => {
    const panel = composer.querySelector('[data-command-help]');
    if (panel.hidden) openPanel(panel);
    else closePanels();
  },
};

// --- Panels (help, models) ----------------------------------------------------

function openPanel(panel) {
  closePanels();
  panel.hidden = false;
  keepBottom();
}

// closePanels hides the help and the model list; true if one was open.
export function closePanels() {
  let closed = false;
  for (const p of composer.querySelectorAll('.composer-panel')) {
    closed ||= !p.hidden;
    p.hidden = true;
  }
  return closed;
}

// closeCards removes the /diff card and /undo's confirm card, passing
// panels shown in the conversation, for Esc (an undo not confirmed is an
// undo cancelled); true if one was there.
export function closeCards() {
  const cards = document.querySelectorAll('#messages > [data-testid="diff-card"], #messages > [data-testid="undo-card"]');
  for (const card of cards) card.remove();
  return cards.length > 0;
}

// --- Autocomplete -------------------------------------------------------------

let listed = []; // commands the open list shows
let active = 0;
let dismissed = ''; // the text for which Esc closed the list

function commandList() {
  return composer.querySelector('#command-list');
}

export function hideCommands() {
  argsFor = '';
  argAsked++;
  const list = commandList();
  if (!list || list.hidden) return;
  forgetChoices();
  list.hidden = true;
  listed = [];
  input.removeAttribute('aria-activedescendant');
}

// updateCommands lists the commands that complete what is typed.
export function updateCommands() {
  if (input.value !== dismissed) dismissed = '';
  // "/model " and the like: the command's arguments (completion.js).
  const a = /^\/([a-z][a-z0-9_:-]*) +(\S*)$/i.exec(input.value);
  if (a && input.value !== dismissed && completes(a[1].toLowerCase()) && commands.some((c) => c.name === a[1].toLowerCase() && !c.custom)) {
    updateArguments(a[1].toLowerCase(), a[2]);
    return;
  }
  argsFor = '';
  const m = /^\/([a-z0-9_:-]*)$/i.exec(input.value);
  if (!m || input.value === dismissed) {
    hideCommands();
    return;
  }
  const word = m[1].toLowerCase();
  listed = commands.filter((c) => c.name.startsWith(word));
  if (listed.length === 0 || (listed.length === 1 && listed[0].name === word && !listed[0].args)) {
    hideCommands();
    return;
  }
  active = 0;
  const list = commandList();
  list.replaceChildren(
    ...listed.map((c, i) => {
      const li = el('li', 'command-option');
      li.id = `command-option-${c.name}`;
      li.setAttribute('role', 'option');
      li.dataset.command = c.name;
      li.append(el('code', '', `/${c.name}${c.args ? ` ${c.args}` : ''}`), el('span', '', c.help));
      li.addEventListener('mousedown', (e) => {
        e.preventDefault(); // keep the focus in the textarea
        active = i;
        acceptCommand(false);
      });
      return li;
    }),
  );
  list.hidden = false;
  markActive();
}

// --- Argument completion -----------------------------------------------------

let argsFor = ''; // the command whose arguments the list shows; '' for commands
let argAsked = 0; // the latest ask: an older answer is dropped

// updateArguments lists the arguments of /name that match typed.
async function updateArguments(name, typed) {
  const n = ++argAsked;
  let choices = [];
  try {
    choices = await argumentChoices(name, typed, urls.session || '');
  } catch {
    choices = [];
  }
  if (n !== argAsked || !input.value.startsWith(`/${name} `)) return;
  if (choices.length === 0 || (choices.length === 1 && choices[0].value === typed)) {
    hideCommands();
    return;
  }
  argsFor = name;
  listed = choices.map((c) => ({ name, value: c.value, args: '', help: [c.label, c.detail].filter(Boolean).join(' · ') }));
  active = 0;
  const list = commandList();
  list.replaceChildren(
    ...listed.map((c, i) => {
      const li = el('li', 'command-option');
      li.id = `command-arg-${i}`;
      li.setAttribute('role', 'option');
      li.dataset.arg = c.value;
      li.append(el('code', '', `/${name} ${c.value}`), el('span', '', c.help));
      li.addEventListener('mousedown', (e) => {
        e.preventDefault(); // keep the focus in the textarea
        active = i;
        acceptCommand(false);
      });
      return li;
    }),
  );
  list.hidden = false;
  markActive();
}

function markActive() {
  const options = commandList().children;
  for (let i = 0; i < options.length; i++) options[i].setAttribute('aria-selected', i === active ? 'true' : 'false');
  const opt = options[active];
  if (opt) {
    input.setAttribute('aria-activedescendant', opt.id);
    opt.scrollIntoView({ block: 'nearest' });
  }
}

// acceptCommand completes the highlighted command; with run, a command
// that takes no argument runs at once.
function acceptCommand(run) {
  const c = listed[active];
  if (!c) return;
  if (argsFor) {
    // An argument: completed, and with run (Enter) the command runs.
    input.value = `/${c.name} ${c.value}`;
    const folder = !run && c.value.endsWith('/');
    hideCommands();
    saveDraft();
    if (folder) updateCommands(); // a folder of /diff: its entries
    if (!run || input.disabled || isSending()) return;
    const cmd = parseCommand(input.value);
    if (cmd) runCommand(cmd);
    return;
  }
  const now = run && (!c.args || c.optional);
  input.value = c.args && !now ? `/${c.name} ` : `/${c.name}`;
  hideCommands();
  saveDraft();
  if (!now || input.disabled || isSending()) return;
  const cmd = parseCommand(input.value);
  if (cmd) runCommand(cmd);
}

// onListKey handles the keys of the open command list; true when it took one.
export function onListKey(e) {
  if (commandList().hidden) return false;
  switch (e.key) {
    case 'ArrowDown':
      active = (active + 1) % listed.length;
      markActive();
      return true;
    case 'ArrowUp':
      active = (active - 1 + listed.length) % listed.length;
      markActive();
      return true;
    case 'Tab':
      if (e.shiftKey) return false;
      acceptCommand(false);
      return true;
    case 'Enter': {
      if (e.shiftKey) return false;
      if (argsFor) {
        acceptCommand(true);
        return true;
      }
      const typed = input.value.slice(1).toLowerCase();
      if (typed === '') return true; // a lone "/" picks nothing
      if (listed.some((c) => c.name === typed && !c.args)) return false; // complete already: send
      acceptCommand(true);
      return true;
    }
    case 'Escape':
      dismissed = input.value;
      hideCommands();
      return true;
  }
  return false;
}
