import { chromium } from 'playwright';
import fs from 'node:fs';
const svg = fs.readFileSync('static/favicon.svg', 'utf8');
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
async function shot(size, html, out) {
  const p = await b.newPage({ viewport: { width: size, height: size } });
  await p.setContent(`<html><body style="margin:0;background:transparent">${html}</body></html>`);
  await p.screenshot({ path: out, omitBackground: true });
  await p.close();
}
const sized = (n) => svg.replace('<svg ', `<svg width="${n}" height="${n}" style="display:block" `);
await shot(192, sized(192), 'static/icon-192.png');
await shot(512, sized(512), 'static/icon-512.png');
// Maskable: the mark inside the 80% safe zone on a full-bleed background.
const inner = svg.replace(/<rect[^>]*\/>/, '').replace('<svg ', `<svg width="320" height="320" style="display:block" `);
await shot(512, `<div style="width:512px;height:512px;background:#1d5fb8;display:flex;align-items:center;justify-content:center">${inner}</div>`, 'static/icon-maskable-512.png');
await b.close();
