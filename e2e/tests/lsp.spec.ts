import { test, expect, send, openSession } from '../fixtures';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Language servers: the agent checks a Go file with lsp_diagnostics; the
// person is asked once to start gopls, and the result card shows the
// type error with its line. /lsp then lists gopls as running. gopls is
// the one tools/gopls pins, built once into the temporary folder (the Go
// tests in server/lsp share it); under CI a gopls that cannot be built
// fails the spec rather than skipping it.

const goplsVersion = 'v0.23.0'; // tools/gopls/go.mod, server/lsp/lsptest

function gopls(): string {
  if (process.env.MYCO_GOPLS) return process.env.MYCO_GOPLS;
  const out = path.join(os.tmpdir(), `myco-gopls-${goplsVersion}`, 'gopls');
  if (fs.existsSync(out)) return out;
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const tmp = `${out}.${process.pid}`;
  execFileSync('go', ['build', '-o', tmp, 'golang.org/x/tools/gopls'], {
    cwd: path.resolve(__dirname, '..', '..', 'tools', 'gopls'), stdio: 'inherit', timeout: 15 * 60_000,
  });
  fs.renameSync(tmp, out);
  return out;
}

const shots = '/tmp/shots-lsp';

test('lsp_diagnostics asks to start gopls, then shows the type error; /lsp lists it running', async ({ page, myco, fake }) => {
  test.setTimeout(20 * 60_000); // a first run builds gopls
  let bin = '';
  try {
    bin = gopls();
  } catch (err) {
    if (process.env.CI === 'true') throw err;
    test.skip(true, `no gopls: ${err}`);
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'myco-lsp-'));
  fs.writeFileSync(path.join(work, 'go.mod'), 'module example.com/demo\n\ngo 1.22\n');
  fs.writeFileSync(path.join(work, 'main.go'), 'package main\n\nfunc main() {\n\tvar n int = "five"\n\t_ = n\n}\n');
  try {
    const env = myco.env.bind(myco);
    // Only this gopls: PATH gets its folder first, and the other servers
    // this machine may have are found too, which the spec does not mind.
    myco.env = () => ({ ...env(), PATH: `${path.dirname(bin)}:${process.env.PATH}`, GOFLAGS: '-mod=mod', GOPROXY: 'off' });
    myco.useModels(fake.url);
    const id = myco.writeSession({ title: 'Language servers', cwd: work });
    await myco.start();
    await openSession(page, myco, id);

    await send(page, 'check main.go [[steps: tool:lsp_diagnostics {"path":"main.go"} ;; say:checked it]]');
    const card = page.getByTestId('approval');
    await expect(card).toHaveAttribute('data-tool', 'lsp_diagnostics');
    await expect(card.getByTestId('approval-note')).toContainText('starts its language server');
    await page.screenshot({ path: `${shots}/approval-1280.png` });
    await card.getByRole('button', { name: 'Allow this language server for this session' }).click();

    await expect(page.locator('[data-testid="message"][data-role="assistant"]').last()).toContainText('checked it', { timeout: 60_000 });
    const result = page.locator('[data-testid="tool-call"][data-tool="lsp_diagnostics"] [data-testid="tool-result"]');
    await expect(result).toHaveCount(1);
    await expect(result).toContainText('main.go: 1 error (from gopls)');
    await expect(result).toContainText(/4:\d+ error: .*string/);

    await send(page, '/lsp');
    const panel = page.getByTestId('lsp-list');
    await expect(panel).toBeVisible();
    const row = panel.locator('[data-testid="lsp-server"][data-server="gopls"]');
    await expect(row).toHaveAttribute('data-state', 'running');
    await expect(row).toContainText('Go files here');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: `${shots}/lsp-1280.png` });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${shots}/lsp-390.png` });
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
});
