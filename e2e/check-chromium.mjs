#!/usr/bin/env node
// check-chromium compares Debian's Chromium with the Chromium the pinned
// @playwright/test release was built for, then proves the pair works with a
// smoke test: launch, open a page, evaluate, take a screenshot. Debian moves
// Chromium both ways with its security updates (156 one week, 148 the
// next), and Playwright drives it over CDP, which usually holds across many
// majors, so a version number alone never fails a run: any drift warns and
// names the release to pin; only a smoke test that fails stops the run,
// with its error. docs/TESTING.md explains the rule.
//
//   node e2e/check-chromium.mjs                 # chromium --version vs package.json, then the smoke test
//   node e2e/check-chromium.mjs --have "Chromium 148.0.1 built on Debian" --want 156
//   node e2e/check-chromium.mjs --no-smoke      # the version check alone
//   node e2e/check-chromium.mjs --executable /path/to/chromium
//
// --have and --want stand in for the real versions, so the rule can be
// tested without installing another Chromium.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// closeDrift is how many Chromium majors, either way, Playwright has been
// seen to span here without a hitch. Past it the warning is louder, but the
// smoke test still decides.
export const closeDrift = 4;

// knownReleases maps a Chromium major to the @playwright/test release built
// for it (read from playwright-core's browsers.json of each release). Add a
// line when you pin a new release.
export const knownReleases = {
  153: '1.63.0',
  156: '1.64.1',
  159: '1.65.1',
};

const releaseNotes = 'https://playwright.dev/docs/release-notes';

// parseMajor reads the major version out of `chromium --version` output
// ("Chromium 156.0.8078.114 built on Debian GNU/Linux 12 (bookworm)").
export function parseMajor(text) {
  const m = /(\d+)\.\d+/.exec(String(text)) ?? /(\d+)/.exec(String(text));
  if (!m) throw new Error(`no version number in ${JSON.stringify(String(text).trim())}`);
  return Number(m[1]);
}

// releaseFor names the @playwright/test release to pin for Chromium major
// have: the known one, or the nearest known release and where to look.
export function releaseFor(have, known = knownReleases) {
  if (known[have]) return `@playwright/test ${known[have]}`;
  const majors = Object.keys(known).map(Number).sort((a, b) => a - b);
  const newer = majors.find((m) => m > have);
  const older = [...majors].reverse().find((m) => m < have);
  let hint = '';
  if (older !== undefined && newer !== undefined) hint = `, between ${known[older]} (Chromium ${older}) and ${known[newer]} (Chromium ${newer})`;
  else if (older !== undefined) hint = `, newer than ${known[older]} (Chromium ${older})`;
  else if (newer !== undefined) hint = `, older than ${known[newer]} (Chromium ${newer})`;
  return `the @playwright/test release built for Chromium ${have}${hint} (${releaseNotes} names each release's Chromium)`;
}

// compare describes a drift between have (Debian's Chromium major) and
// want (the pinned Playwright's): {level: 'ok' | 'warn', message}. It never
// fails: whether the pair works is the smoke test's to say.
export function compare(have, want, pinned = knownReleases[want], known = knownReleases) {
  const drift = have - want;
  if (drift === 0) return { level: 'ok', message: '' };
  const pin = pinned ? `@playwright/test ${pinned}` : '@playwright/test';
  const dir = drift > 0 ? 'newer' : 'older';
  const what = `Debian's chromium ${have} is ${Math.abs(drift)} major${Math.abs(drift) === 1 ? '' : 's'} ${dir} than the chromium ${want} that ${pin} (package.json) was built for.`;
  const fix = `To match it, pin ${releaseFor(have, known)}.\nSet both devDependencies and playwrightChromiumMajor in package.json at the repository root, then run npm install there (see docs/TESTING.md).`;
  const how = Math.abs(drift) <= closeDrift
    ? `Playwright usually works across a drift of up to ${closeDrift} majors; the smoke test checks this pair before the tests run.`
    : `That is more than the ${closeDrift} majors seen to work here, so the smoke test decides: if it passes, the tests run; if they then fail in odd ways, this is the first suspect.`;
  return { level: 'warn', message: `WARNING: ${what}\n${how}\n${fix}` };
}

// launchArgs are the flags the browser tests launch Chromium with
// (playwright.config.ts): nothing reaches for the network.
export const launchArgs = [
  '--no-sandbox', '--headless', '--disable-gpu', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-quic',
];

// smoke launches Chromium through the pinned Playwright, opens a page,
// evaluates in it and takes a screenshot: what every browser test needs.
// It throws the step that failed, with Playwright's error.
export async function smoke(executablePath = '/usr/bin/chromium') {
  let step = 'loading @playwright/test (run npm ci at the repository root)';
  try {
    const { chromium } = await import('@playwright/test');
    step = `launching ${executablePath}`;
    const browser = await chromium.launch({ executablePath, args: launchArgs, timeout: 60_000 });
    try {
      step = 'opening a page';
      const page = await browser.newPage({ viewport: { width: 320, height: 200 } });
      await page.setContent('<main><h1 id="t">myco smoke</h1></main>');
      step = 'evaluating in the page';
      const got = await page.evaluate(() => document.getElementById('t')?.textContent);
      if (got !== 'myco smoke') throw new Error(`the page said ${JSON.stringify(got)}, not "myco smoke"`);
      step = 'taking a screenshot';
      const png = await page.screenshot();
      if (png.length < 100 || png.readUInt32BE(0) !== 0x89504e47) throw new Error(`the screenshot is no PNG (${png.length} bytes)`);
      return { version: browser.version() };
    } finally {
      await browser.close();
    }
  } catch (err) {
    throw new Error(`smoke test failed ${step}: ${err instanceof Error ? err.message : err}`);
  }
}

function flag(args, name) {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(args) {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const executable = flag(args, '--executable') ?? (process.env.MYCO_CHROMIUM || '/usr/bin/chromium');
  const want = Number(flag(args, '--want') ?? pkg.playwrightChromiumMajor);
  if (!Number.isInteger(want)) throw new Error('package.json has no playwrightChromiumMajor');
  let haveText = flag(args, '--have');
  try {
    haveText ??= execFileSync(executable, ['--version'], { cwd: here, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const r = compare(parseMajor(haveText), want, pkg.devDependencies?.['@playwright/test']);
    for (const line of r.message.split('\n').filter(Boolean)) console.error(`e2e: ${line}`);
  } catch (err) {
    // No version to compare is no reason to stop: the smoke test says
    // whether this Chromium works.
    console.error(`e2e: WARNING: cannot read chromium's version (${err instanceof Error ? err.message : err}); the smoke test decides`);
  }
  if (args.includes('--no-smoke')) return 0;
  const { version } = await smoke(executable);
  if (process.env.MYCO_CHECK_VERBOSE) console.error(`e2e: smoke test passed on chromium ${version}`);
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    process.exitCode = await main(process.argv.slice(2));
  } catch (err) {
    console.error(`e2e: ERROR: Debian's chromium does not work with the pinned Playwright: ${err instanceof Error ? err.message : err}`);
    process.exitCode = 1;
  }
}
