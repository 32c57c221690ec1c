// Run by make.sh: node pdf-page.mjs <render-url> <out.png>. Renders one page of the PDF
// with pdf.js inside Chromium (pdf-page.html) and saves it as an image.
import puppeteer from 'puppeteer-core';
const [url, out] = process.argv.slice(2);
const browser = await puppeteer.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--hide-scrollbars'] });
const page = await browser.newPage();
await page.setViewport({ width: 1000, height: 1400, deviceScaleFactor: 1 });
await page.goto(url);
await page.waitForFunction('window.done || window.err', { timeout: 60000 });
const err = await page.evaluate('window.err');
if (err) { console.error(err); process.exit(1); }
console.log('pages in PDF:', await page.evaluate('window.numPages'));
const c = await page.$('#c');
await c.screenshot({ path: out });
await browser.close();
