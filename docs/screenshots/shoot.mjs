// Run by make.sh: node shoot.mjs <base-url> <out-dir> <pdf-path>. Four full-page
// screenshots of a case at 375 CSS pixels (a phone), then the case printed to PDF with its
// first graphic photograph opened.
import puppeteer from 'puppeteer-core';
const [base = 'http://127.0.0.1:8124', out = '.', pdfPath = '/tmp/shots/case.pdf'] = process.argv.slice(2);
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  protocolTimeout: 60000,
  args: ['--no-sandbox', '--hide-scrollbars', '--font-render-hinting=none'],
});
const mobile = { width: 375, height: 812, deviceScaleFactor: 1.5, isMobile: true, hasTouch: true };
const UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

async function settle(page) {
  // scroll through the page so lazy images load, then back to top
  await page.evaluate(async () => {
    for (let y = 0; y < document.body.scrollHeight; y += 400) { window.scrollTo(0, y); await new Promise(r => setTimeout(r, 50)); }
    window.scrollTo(0, 0);
    // wait (max 5 s) for images that are actually rendered; lazy images inside closed <details> never load
    const pending = [...document.images].filter(i => !i.complete && i.getClientRects().length);
    await Promise.race([
      Promise.all(pending.map(i => new Promise(r => { i.addEventListener('load', r); i.addEventListener('error', r); }))),
      new Promise(r => setTimeout(r, 5000)),
    ]);
    await document.fonts.ready;
  });
  await new Promise(r => setTimeout(r, 300));
}

for (const [path, lang] of [['/cases/syn-0001/', 'en'], ['/ar/cases/syn-0001/', 'ar']]) {
  for (const scheme of ['light', 'dark']) {
    const page = await browser.newPage();
    await page.setUserAgent(UA);
    await page.setViewport(mobile);
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);
    await page.goto(base + path, { waitUntil: 'networkidle0' });
    await settle(page);
    const file = `${out}/case-375-${lang}-${scheme}.png`;
    await page.screenshot({ path: file, fullPage: true });
    console.log('wrote', file, await page.evaluate(() => document.documentElement.scrollHeight), 'css px tall');
    await page.close();
  }
}

// print PDF with the first graphic photo revealed
const page = await browser.newPage();
await page.setViewport({ width: 1280, height: 900 });
await page.goto(base + '/cases/syn-0001/', { waitUntil: 'networkidle0' });
await page.click('details.reveal summary');
await settle(page);
console.log('open reveals:', await page.evaluate(() => [...document.querySelectorAll('details.reveal')].map(d => d.open)));
await page.emulateMediaType('print');
await page.pdf({ path: pdfPath, format: 'A4', printBackground: false });
console.log('wrote', pdfPath);
await browser.close();
