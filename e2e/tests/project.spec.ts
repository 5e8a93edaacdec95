import { test, expect, send, openSession } from '../fixtures';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const MCPTEST_BIN = path.join(__dirname, '..', '.bin', 'mcptest');
const systemOf = (r: any): string => (Array.isArray(r.body?.system) ? r.body.system.map((b: any) => b.text).join('') : String(r.body?.system ?? ''));

// A project as a person brings it (issue 23): an AGENTS.md, a command of
// myco's and one of Claude Code's, a skill and an MCP server, used in one
// session, on a desktop and on a phone. What reaches the model: AGENTS.md
// in the system prompt, the command's expansion, the skill's body and the
// server's answer; and every request of the session sends the same
// system prompt and tools block (the prompt cache holds).
for (const [w, h] of [[1280, 800], [390, 844]]) {
  test(`a project's instructions, commands, skills and MCP server in one session at ${w}px`, async ({ page, myco, fake }) => {
    test.setTimeout(180_000);
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'day-'));
    fs.mkdirSync(path.join(work, '.git'));
    fs.writeFileSync(path.join(work, 'AGENTS.md'), '# Project\n\nRun the tests with `task test`. Handlers live in api/.\n');
    fs.mkdirSync(path.join(work, '.myco', 'commands'), { recursive: true });
    fs.writeFileSync(path.join(work, '.myco', 'commands', 'review.md'), '---\ndescription: Review a file for bugs\nargument-hint: [file]\n---\nReview $1 for bugs and say what you would change.\n');
    fs.mkdirSync(path.join(work, '.claude', 'commands'), { recursive: true });
    fs.writeFileSync(path.join(work, '.claude', 'commands', 'changelog.md'), '---\ndescription: Write the changelog entry\n---\nWrite the changelog entry for: $ARGUMENTS\n');
    fs.mkdirSync(path.join(work, '.myco', 'skills', 'release'), { recursive: true });
    fs.writeFileSync(path.join(work, '.myco', 'skills', 'release', 'SKILL.md'), '---\nname: release\ndescription: How to cut a release of this project\n---\nTag, then run task release.\n');
    await page.setViewportSize({ width: w, height: h });
    myco.useModels(fake.url, { mcp_servers: { tools: { command: MCPTEST_BIN, allow: ['echo'] } } });
    const id = myco.writeSession({ cwd: work });
    await myco.start();
    await openSession(page, myco, id);
    const last = page.locator('[data-testid="message"][data-role="assistant"]').last();

    await send(page, '/review api/main.go');
    await expect(last).toContainText('You said', { timeout: 30_000 });
    await send(page, 'check the server [[tool:mcp__tools__echo {"text":"pong"}]]');
    await expect(last).toContainText('pong', { timeout: 30_000 });
    await send(page, 'how do we release? [[tool:skill {"name":"release"}]]');
    await expect(last).toContainText('task release', { timeout: 30_000 });
    if (w < 600) await page.getByRole('button', { name: 'Details' }).click();
    const panel = page.getByTestId('mcp-panel');
    await panel.scrollIntoViewIfNeeded();
    await expect(panel.locator('[data-testid="mcp-server"][data-server="tools"]')).toHaveAttribute('data-state', 'connected');
    await expect(page.getByTestId('skills-panel')).toContainText('release');

    const reqs = (await fake.chatRequests()).filter((r: any) => Array.isArray(r.body?.tools) && r.body.tools.length > 0);
    const sys = reqs.map(systemOf);
    const tools = reqs.map((r: any) => JSON.stringify(r.body.tools));
    expect(reqs.length).toBeGreaterThanOrEqual(5);
    expect(sys[0]).toContain('Run the tests with `task test`');
    expect(JSON.stringify(reqs[0].body.messages)).toContain('Review api/main.go for bugs');
    expect(reqs[0].body.tools.map((t: any) => t.name)).toEqual(expect.arrayContaining(['skill', 'remember', 'web_fetch', 'mcp__tools__echo']));
    expect(new Set(sys).size).toBe(1);
    expect(new Set(tools).size).toBe(1);
  });
}
