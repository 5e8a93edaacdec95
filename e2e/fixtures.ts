import { test as base, expect, type Page } from '@playwright/test';
import { ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// MYCO_BENCH_MYCO runs the tests (task bench:tab, mostly) against another
// build of myco, say the last release's, to compare two in one sitting.
export const MYCO_BIN = process.env.MYCO_BENCH_MYCO || path.join(__dirname, '.bin', 'myco');
export const FAKELLM_BIN = path.join(__dirname, '.bin', 'fakellm');
export const PROFILE = 'e2e';

// A myco server started for one test on a fresh MYCO_HOME, with helpers to
// prepare its profile on disk the way a user's would look.
export class Myco {
  home: string;
  profileDir: string;
  sessionDir: string;
  archivedDir: string;
  imagesDir: string;
  url = '';
  token = '';
  proc?: ChildProcess;
  stderr = '';

  constructor() {
    this.home = fs.mkdtempSync(path.join(os.tmpdir(), 'myco-e2e-'));
    this.profileDir = path.join(this.home, 'profiles', PROFILE);
    this.sessionDir = path.join(this.profileDir, 'session');
    this.archivedDir = path.join(this.sessionDir, 'archived');
    this.imagesDir = path.join(this.profileDir, 'images');
    for (const d of [this.sessionDir, this.archivedDir, this.imagesDir]) fs.mkdirSync(d, { recursive: true });
  }

  // useModels points the profile at the fake model server (settings.json),
  // as a user would point it at a provider.
  useModels(fakeURL: string, settings: Record<string, unknown> = {}) {
    const s = {
      default_model: 'anthropic/fake-model',
      title_model: 'anthropic/fake-title',
      providers: { anthropic: { base_url: fakeURL, api_key_env: 'MYCO_E2E_KEY' } },
      ...settings,
    };
    fs.writeFileSync(path.join(this.profileDir, 'settings.json'), JSON.stringify(s, null, 2), { mode: 0o600 });
  }

  env(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env, MYCO_HOME: this.home, MYCO_E2E_KEY: 'sk-e2e' };
    delete env.ANTHROPIC_API_KEY;
    delete env.ANTHROPIC_BASE_URL;
    delete env.OPENAI_BASE_URL;
    delete env.MYCO_MODEL;
    return env;
  }

  // cli runs a myco subcommand on this profile as a separate process.
  cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const p = spawn(MYCO_BIN, ['--profile', PROFILE, ...args], { env: this.env() });
      let stdout = '', stderr = '';
      p.stdout.on('data', (d) => (stdout += d));
      p.stderr.on('data', (d) => (stderr += d));
      p.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    });
  }

  // start runs `myco --no-open` and waits for the line with its URL. By
  // default it listens on a new port (--addr 127.0.0.1:0); addr null
  // passes no --addr, so myco takes the profile's remembered address.
  async start(extraArgs: string[] = [], addr: string | null = '127.0.0.1:0'): Promise<void> {
    const where = addr === null ? [] : ['--addr', addr];
    this.stderr = '';
    this.proc = spawn(MYCO_BIN, ['--profile', PROFILE, '--no-open', ...where, ...extraArgs], {
      env: this.env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.proc.stderr!.on('data', (d) => (this.stderr += d.toString()));
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error('myco did not start: ' + this.stderr)), 20_000);
      this.proc!.stdout!.on('data', (d) => {
        out += d.toString();
        const m = out.match(/(http:\/\/127\.0\.0\.1:\d+\S*)/);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      this.proc!.on('exit', (code) => reject(new Error(`myco exited ${code}: ${this.stderr}`)));
    });
    const u = new URL(line);
    this.token = u.searchParams.get('token')!;
    this.url = u.origin;
  }

  // link is a URL that carries the token, as the one myco prints.
  link(p = '/'): string {
    return `${this.url}${p}${p.includes('?') ? '&' : '?'}token=${this.token}`;
  }

  // api calls myco's JSON API with the token, as a script would.
  api(method: string, p: string, body?: unknown): Promise<Response> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.token}` };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    return fetch(`${this.url}${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  }

  // doc is the session's document as GET /api/sessions/{id} returns it.
  // What the page shows may run ahead of what is saved: read it inside
  // expect.poll when a UI event is what says it changed.
  async doc(id: string): Promise<any> {
    const r = await this.api('GET', `/api/sessions/${id}`);
    if (!r.ok) throw new Error(`GET /api/sessions/${id}: ${r.status} ${await r.text()}`);
    return r.json();
  }

  async stop(): Promise<void> {
    if (!this.proc || this.proc.exitCode !== null) return;
    const exited = new Promise((r) => this.proc!.on('exit', r));
    this.proc.kill('SIGTERM');
    await exited;
  }

  // writeSession writes a schema-1 document into session/ (or archived/).
  writeSession(doc: SessionDoc, where: 'active' | 'archived' = 'active'): string {
    const full = fullDoc(doc);
    const dir = where === 'active' ? this.sessionDir : this.archivedDir;
    fs.writeFileSync(path.join(dir, `${full.id}.json`), JSON.stringify(full, null, 1), { mode: 0o600 });
    return full.id;
  }

  // putImage stores bytes in the content-addressed store, as myco would.
  putImage(bytes: Buffer): string {
    const sha = createHash('sha256').update(bytes).digest('hex');
    const dir = path.join(this.imagesDir, sha.slice(0, 2));
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, sha), bytes, { mode: 0o600 });
    return sha;
  }

  exists(...parts: string[]): boolean {
    return fs.existsSync(path.join(this.sessionDir, ...parts));
  }

  cleanup() {
    fs.rmSync(this.home, { recursive: true, force: true });
  }
}

export type Block = Record<string, unknown>;
export interface Msg {
  role: 'user' | 'assistant';
  text?: string;
  content?: Block[];
  human?: boolean;
  at?: string;
}
export interface SessionDoc {
  id?: string;
  title?: string;
  model?: string;
  cwd?: string; // the session's folder: the agent's shell and file tools start there (default: an empty folder of the worker's)
  updated_at?: string;
  links?: { url: string; title?: string }[];
  scratchpad?: string;
  archived?: boolean;
  threads?: { summary?: string; compacted_from?: number; messages: Msg[] }[];
  messages?: Msg[];
}

let counter = 0;

// workDir is the folder a session works in unless a test names one: an
// empty folder of this worker's, not /tmp, whose snapshot before each turn
// (undo) would read everything the machine keeps there.
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'myco-work-'));

// newID makes a UUIDv7-shaped ID whose time part orders sessions.
export function newID(ms = Date.now()): string {
  const hex = ms.toString(16).padStart(12, '0');
  const rnd = createHash('sha256').update(String(counter++) + Math.random()).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${rnd.slice(0, 3)}-8${rnd.slice(3, 6)}-${rnd.slice(6, 18)}`;
}

function fullDoc(d: SessionDoc) {
  const now = d.updated_at ?? new Date().toISOString();
  const msgs = (ms: Msg[]) =>
    ms.map((m, i) => ({
      id: `m${i}-${Math.random().toString(16).slice(2, 8)}`,
      role: m.role,
      at: m.at ?? now,
      ...(m.human ?? m.role === 'user' ? { human: true } : {}),
      content: m.content ?? [{ type: 'text', text: m.text ?? '' }],
    }));
  const threads = d.threads ?? [{ messages: d.messages ?? [] }];
  return {
    schema: 1,
    id: d.id ?? newID(),
    title: d.title ?? '',
    model: d.model ?? 'anthropic/claude-sonnet-4-5',
    cwd: d.cwd ?? workDir,
    created_at: now,
    updated_at: now,
    archived: d.archived ?? false,
    links: d.links ?? [],
    scratchpad: d.scratchpad ?? '',
    threads: threads.map((t) => ({
      created_at: now,
      ...(t.compacted_from !== undefined ? { compacted_from: t.compacted_from, summary: t.summary ?? '' } : {}),
      messages: msgs(t.messages),
    })),
  };
}

// longSession is n messages: n/2 exchanges of a question and an answer with a list,
// some code and a table, as a day of work leaves.
export function longSession(n: number): Msg[] {
  const at = (i: number) => new Date(Date.UTC(2026, 11, 1, 8, 0, i)).toISOString();
  const msgs: Msg[] = [];
  for (let i = 0; i < n / 2; i++) {
    msgs.push({ role: 'user', text: `Question ${i}: what does step ${i} change in the build?`, at: at(2 * i) });
    msgs.push({
      role: 'assistant',
      at: at(2 * i + 1),
      text: [
        `Step ${i} changes three things:`,
        '',
        '- the cache key, which now includes the toolchain version',
        '- the order of the link step',
        '- nothing else that a test could see',
        '',
        '```go',
        `func step${i}() error { return build(${i}) }`,
        '```',
        '',
        '| file | lines |',
        '| --- | ---: |',
        `| build.go | ${i} |`,
      ].join('\n'),
    });
  }
  return msgs;
}

// FakeLLM is the fake model server (e2e/fakellm), one per test.
export class FakeLLM {
  url = '';
  proc?: ChildProcess;

  async start() {
    this.proc = spawn(FAKELLM_BIN, ['--addr', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    this.url = await new Promise<string>((resolve, reject) => {
      let out = '';
      this.proc!.stdout!.on('data', (d) => {
        out += d.toString();
        const m = out.match(/listening on (http:\/\/\S+)/);
        if (m) resolve(m[1]);
      });
      this.proc!.on('exit', (code) => reject(new Error(`fakellm exited ${code}`)));
    });
  }

  // requests are the model calls the fake received, as it recorded them.
  // A page that shows a message says nothing about whether the request
  // behind it has reached the fake: read them inside expect.poll.
  async requests(): Promise<any[]> {
    const r = await fetch(`${this.url}/_requests`);
    return r.json();
  }

  // chatRequests are the agent's own calls (they carry tools), without the
  // title and summary requests that may come before, between or after them.
  async chatRequests(): Promise<any[]> {
    return (await this.requests()).filter((r) => Array.isArray(r.body?.tools) && r.body.tools.length > 0);
  }

  stop() {
    this.proc?.kill();
  }
}

export const test = base.extend<{ myco: Myco; fake: FakeLLM; closeContexts: void }>({
  // A second tab (browser.newContext) a test opens and does not close
  // would outlive it and keep reconnecting to a myco that is gone, for the
  // rest of the worker's run: every context but the test's own is closed
  // when the test ends.
  closeContexts: [
    async ({ browser, context }, use) => {
      await use();
      await Promise.all(browser.contexts().filter((c) => c !== context).map((c) => c.close().catch(() => {})));
    },
    { auto: true },
  ],
  myco: async ({}, use, testInfo) => {
    const m = new Myco();
    await use(m);
    // A failed test says what myco wrote and whether it was still running:
    // a server that died mid-test shows only as "connection refused".
    if (testInfo.status !== testInfo.expectedStatus && m.proc) {
      const exit = m.proc.exitCode !== null || m.proc.signalCode !== null ? `exited (code ${m.proc.exitCode}, signal ${m.proc.signalCode})` : 'still running';
      await testInfo.attach('myco stderr', { body: `myco ${exit}\n\n${m.stderr}`, contentType: 'text/plain' });
      console.error(`myco ${exit}; its stderr:\n${m.stderr.slice(-4000)}`);
    }
    await m.stop();
    m.cleanup();
  },
  fake: async ({}, use) => {
    const f = new FakeLLM();
    await f.start();
    await use(f);
    f.stop();
  },
});

// openSession opens a session's page in page and waits until it follows
// the session's events, when acting on it is safe.
export async function openSession(page: Page, myco: Myco, id: string): Promise<void> {
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
}

// send types text in the composer and sends it with Enter.
export async function send(page: Page, text: string): Promise<void> {
  const input = page.getByTestId('composer-input');
  await input.fill(text);
  await input.press('Enter');
}

export { expect };
