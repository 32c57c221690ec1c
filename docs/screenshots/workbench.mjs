// Run by make.sh: node workbench.mjs <serve-url> <out-dir>. The workbench of a running
// `casebook serve` (a copy of the bundled site): the queue, then the editor of a sample
// photograph with a region drawn by mouse and the published preview beside it.
import puppeteer from 'puppeteer-core';
const [base = 'http://127.0.0.1:8126', out = '.'] = process.argv.slice(2);
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--hide-scrollbars', '--font-render-hinting=none'],
});
const page = await browser.newPage();
await page.setViewport({ width: 1280, height: 860 });

await page.goto(base + '/__casebook/photos/', { waitUntil: 'networkidle0' });
await page.screenshot({ path: `${out}/workbench-queue.png` });
console.log('wrote', `${out}/workbench-queue.png`);

await page.goto(base + '/__casebook/photos/cases/syn-0001/photo-2.jpg', { waitUntil: 'networkidle0' });
await page.waitForFunction(() => document.getElementById('wb-preview').naturalWidth > 0);
const box = await page.$eval('#wb-stage', (s) => { const r = s.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; });
const at = (fx, fy) => [box[0] + fx * box[2], box[1] + fy * box[3]];
await page.mouse.move(...at(0.55, 0.5));
await page.mouse.down();
await page.mouse.move(...at(0.7, 0.62), { steps: 8 });
await page.mouse.move(...at(0.85, 0.75), { steps: 8 });
await page.mouse.up();
await page.waitForFunction(() => {
  const p = document.getElementById('wb-preview');
  return p.dataset.regions === JSON.stringify(window.casebookWorkbench.regions()) && p.complete;
});
await page.screenshot({ path: `${out}/workbench-editor.png` });
console.log('wrote', `${out}/workbench-editor.png`);
await browser.close();
