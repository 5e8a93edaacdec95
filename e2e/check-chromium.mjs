#!/usr/bin/env node
// check-chromium compares Debian's Chromium with the Chromium the pinned
// @playwright/test release was built for, and says what to do about a
// difference. Debian moves Chromium with its security updates, so an exact
// match cannot be required: Playwright drives Chromium over CDP, which holds
// across a few majors. A small drift warns (exit 0), a large one fails
// (exit 1). docs/TESTING.md explains the rule.
//
//   node e2e/check-chromium.mjs                 # chromium --version vs package.json (at the root)
//   node e2e/check-chromium.mjs --have "Chromium 158.0.1 built on Debian" --want 156
//
// The flags stand in for the real versions, so the rule can be tested
// without installing another Chromium.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// maxDrift is how many Chromium majors, either way, Playwright is trusted
// to span. Playwright's own releases move Chromium by about three majors
// each, and CDP changes that break it are rare within that span; five or
// more is past what anyone has run here.
export const maxDrift = 4;

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

// compare decides what a drift between have (Debian's Chromium major) and
// want (the pinned Playwright's) means: {level: 'ok' | 'warn' | 'fail', message}.
export function compare(have, want, pinned = knownReleases[want], known = knownReleases) {
  const drift = have - want;
  if (drift === 0) return { level: 'ok', message: '' };
  const pin = pinned ? `@playwright/test ${pinned}` : '@playwright/test';
  const dir = drift > 0 ? 'newer' : 'older';
  const what = `Debian's chromium ${have} is ${Math.abs(drift)} major${Math.abs(drift) === 1 ? '' : 's'} ${dir} than the chromium ${want} that ${pin} (package.json) was built for.`;
  const fix = `To match it, pin ${releaseFor(have, known)}.\nSet both devDependencies and playwrightChromiumMajor in package.json at the repository root, then run npm install there (see docs/TESTING.md).`;
  if (Math.abs(drift) <= maxDrift) {
    return { level: 'warn', message: `WARNING: ${what}\nPlaywright usually works across a drift of up to ${maxDrift} majors, so the tests run; if they fail in odd ways, this is the first suspect.\n${fix}` };
  }
  return { level: 'fail', message: `ERROR: ${what}\nThat is more than the ${maxDrift} majors Playwright is trusted to span.\n${fix}` };
}

function flag(args, name) {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

function main(args) {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const haveText = flag(args, '--have') ?? execFileSync('chromium', ['--version'], { cwd: here, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const want = Number(flag(args, '--want') ?? pkg.playwrightChromiumMajor);
  if (!Number.isInteger(want)) throw new Error('package.json has no playwrightChromiumMajor');
  const r = compare(parseMajor(haveText), want, pkg.devDependencies?.['@playwright/test']);
  for (const line of r.message.split('\n').filter(Boolean)) console.error(`e2e: ${line}`);
  return r.level === 'fail' ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (err) {
    console.error(`e2e: checking chromium's version: ${err.message}`);
    process.exitCode = 1;
  }
}
