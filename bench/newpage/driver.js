// The Playwright side of bench/newpage: launches the Chromium given as
// argv[2] with playwright-core, prints {"ready": true} (the bench finds
// the launched Chromium as this process's child), then
// for every URL read from stdin opens a new browser context and tab,
// navigates to the URL (to the load event, Playwright's default), reads
// the page (page.content(): the DOM as HTML) and closes the context, and
// prints {"bytes": …} or {"error": …}. An empty line or the end of stdin
// closes the browser.
const { chromium } = require('playwright-core');
const readline = require('readline');

(async () => {
  const browser = await chromium.launch({ executablePath: process.argv[2], headless: true });
  process.stdout.write(JSON.stringify({ ready: true }) + '\n');
  const rl = readline.createInterface({ input: process.stdin });
  for await (const url of rl) {
    if (url === '') break;
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(url);
      const html = await page.content();
      await context.close();
      process.stdout.write(JSON.stringify({ bytes: html.length }) + '\n');
    } catch (e) {
      process.stdout.write(JSON.stringify({ error: String(e && e.message || e) }) + '\n');
    }
  }
  await browser.close();
})().catch((e) => {
  process.stderr.write(String(e && e.stack || e) + '\n');
  process.exit(1);
});
