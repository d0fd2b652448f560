// Drives the dashboard in headless Chromium (Debian's chromium package)
// as an administrator would: signs in with Basic authentication, clicks
// "Create key" and reads the key from its data-secret element, calls the
// API with it (200), clicks "Revoke" beside it, is asked, first cancels and
// then confirms with "Revoke" (the API then answers 401), clicks "Replay"
// beside a delivery and waits for the new send's attempt, pauses (asked),
// resumes and rotates (asked) the subscription, and opens the page at a
// phone's width (375 px): nothing may scroll sideways, headings go down
// one level at a time, every control has a label. Then the console's
// newer parts: "Send a test event" on the subscription (its delivery's
// page, the test event delivered), a booking's page with its supplier
// calls in the timeline, the watches and events lists searched from the
// keyboard alone, the charts, each at 375 px too; no page shows any id of
// the other organization (OTHER_IDS).
// A screenshot of each step goes to SHOTS. Run by
// tests/e2e/test_dashboard_browser.c, which sets up the organization, the
// login and the delivery; prints one JSON line and exits 0 when every
// step held.
import puppeteer from 'puppeteer-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set`);
  return v;
};
const dashUrl = env('DASH_URL');
const apiUrl = env('API_URL');
const shots = env('SHOTS');
const deliveryId = env('DELIVERY_ID');
const bookingId = env('BOOKING_ID');
const watchId = env('WATCH_ID');
const otherIds = env('OTHER_IDS').split(',');
mkdirSync(shots, { recursive: true });
const taken = [];
const steps = [];

async function shot(page, name) {
  const path = join(shots, name);
  await page.screenshot({ path, fullPage: true });
  taken.push(path);
}

// The button labelled `label` inside `scope` (an element handle or page).
async function button(scope, label) {
  const b = await scope.$(`::-p-xpath(.//button[normalize-space()="${label}"])`);
  if (!b) throw new Error(`no "${label}" button`);
  return b;
}

async function submit(page, btn) {
  const [resp] = await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), btn.click()]);
  return resp;
}

async function api(key) {
  const r = await fetch(`${apiUrl}/v1/flight/bookings`, { headers: { 'x-api-key': key } });
  await r.arrayBuffer();
  return r.status;
}

// Nothing of the other organization on the page.
async function ownOnly(page, where) {
  const html = await page.content();
  const seen = otherIds.filter((id) => html.includes(id));
  check(seen.length === 0, `${where} shows nothing of another organization`);
}

async function fits(page, where) {
  const w = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  check(w[0] <= w[1], `${where} fits at 375 px (${w[0]} <= ${w[1]})`);
  const unlabelled = await page.$$eval('button, select, input:not([type=hidden])', (els) =>
    els.filter((e) => !(e.getAttribute('aria-label') || e.textContent.trim() || e.closest('label'))).length);
  check(unlabelled === 0, `every control of ${where} has a label`);
  const levels = await page.$$eval('h1, h2, h3, h4', (hs) => hs.map((h) => Number(h.tagName[1])));
  check(levels[0] === 1 && levels.every((l, i) => i === 0 || l <= levels[i - 1] + 1),
    `the headings of ${where} go down one level at a time (${levels.join(' ')})`);
}

function check(cond, what) {
  if (!cond) throw new Error(what);
  steps.push(what);
}

const browser = await puppeteer.launch({
  executablePath: env('CHROMIUM'),
  headless: true,
  timeout: 120000,
  // --no-sandbox: the tests may run as root, where Chromium's sandbox refuses to start.
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
    // Tests reach only loopback: Chromium's own background services
    // (updates, sign-in, sync) would look names up; every name but the
    // loopback ones is answered "not found" inside Chromium.
    '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--disable-domain-reliability', '--no-pings'],
});
let page;
try {
  page = await browser.newPage();
  page.setDefaultTimeout(60000);
  page.setDefaultNavigationTimeout(60000);
  await page.setViewport({ width: 1280, height: 900 });
  await page.authenticate({ username: env('LOGIN'), password: env('PASSWORD') });
  const first = await page.goto(dashUrl, { waitUntil: 'load' });
  check(first.status() === 200, 'the dashboard opens after Basic authentication');
  await shot(page, '01-dashboard.png');

  // Create key: the key is shown once, in the data-secret element.
  let resp = await submit(page, await button(page, 'Create key'));
  check(resp.status() === 201, '"Create key" answers 201');
  const key = await page.$eval('[data-secret]', (e) => e.textContent.trim());
  check(/^tk_test_[A-Za-z0-9]+$/.test(key), 'the new key is in [data-secret]');
  await shot(page, '02-key-created.png');
  check((await api(key)) === 200, 'the new key works on the API (200)');

  // Revoke beside that key (its row shows the key's first 12 characters).
  const row = await page.$(`::-p-xpath(//tr[@data-key][.//code[starts-with(., "${key.slice(0, 12)}")]])`);
  check(row !== null, 'the new key is listed');
  const keyId = await row.evaluate((e) => e.getAttribute('data-key'));
  // "Revoke" asks first; Cancel goes back with nothing changed.
  resp = await submit(page, await button(row, 'Revoke'));
  check(resp.status() === 200 && (await page.$('#confirm')) !== null, '"Revoke" asks first');
  check((await page.$eval('#confirm h1', (e) => e.textContent)).includes(keyId), 'the question names the key');
  await shot(page, '03a-revoke-asked.png');
  await submit(page, await page.$('::-p-xpath(//a[normalize-space()="Cancel"])'));
  check((await page.$eval(`tr[data-key="${keyId}"]`, (e) => e.getAttribute('data-state'))) === 'active',
    'Cancel leaves the key active');
  check((await api(key)) === 200, 'the key still works after Cancel');
  resp = await submit(page, await button(await page.$(`tr[data-key="${keyId}"]`), 'Revoke'));
  resp = await submit(page, await button(await page.$('#confirm'), 'Revoke'));
  check(resp.status() === 200, '"Revoke" in the question comes back to the page');
  const state = await page.$eval(`tr[data-key="${keyId}"]`, (e) => e.getAttribute('data-state'));
  check(state === 'revoked', 'the key is listed as revoked');
  check(!(await page.content()).includes(key), 'the key is never shown again');
  await shot(page, '03-key-revoked.png');
  // Each httpd child forgets the key when the database's change
  // notification reaches it, milliseconds after the commit; bounded here
  // for a loaded machine, then refused for good.
  const revokedAt = Date.now();
  while ((await api(key)) !== 401 && Date.now() - revokedAt < 5000) {
    await new Promise((r) => setTimeout(r, 10));
  }
  let refusals = 0;
  for (let i = 0; i < 10; i++) refusals += (await api(key)) === 401 ? 1 : 0;
  check(refusals === 10, 'the revoked key is refused (401) from then on');

  // Replay beside the delivery; a new attempt appears on the page.
  // The subscription's row (the deliveries list above has one too).
  const sel = `#webhooks tr[data-delivery="${deliveryId}"]`;
  const before = Number(await page.$eval(sel, (e) => e.getAttribute('data-replay-count')));
  resp = await submit(page, await button(await page.$(sel), 'Replay'));
  check(resp.status() === 200, '"Replay" comes back to the page');
  const deadline = Date.now() + 60000;
  for (;;) {
    const [replays, attempts] = await page.$eval(sel, (e) => [
      Number(e.getAttribute('data-replay-count')),
      e.querySelectorAll('li[data-attempt]').length,
    ]);
    if (replays === before + 1 && attempts >= 1) break;
    if (Date.now() > deadline) throw new Error(`no new attempt after the replay (replays ${replays}, attempts ${attempts})`);
    await new Promise((r) => setTimeout(r, 500));
    await page.reload({ waitUntil: 'load' });
  }
  steps.push('a new attempt appears after "Replay"');
  await shot(page, '04-delivery-replayed.png');

  // Pause asks first; its question's "Pause" pauses; "Resume" does not ask.
  const subSel = `div[data-subscription="${env('SUBSCRIPTION_ID')}"]`;
  resp = await submit(page, await button(await page.$(subSel), 'Pause'));
  check((await page.$('#confirm')) !== null, '"Pause" asks first');
  resp = await submit(page, await button(await page.$('#confirm'), 'Pause'));
  check((await page.$eval(subSel, (e) => e.getAttribute('data-status'))) === 'PAUSED', 'the subscription is paused');
  await shot(page, '05-subscription-paused.png');
  resp = await submit(page, await button(await page.$(subSel), 'Resume'));
  check((await page.$eval(subSel, (e) => e.getAttribute('data-status'))) === 'ACTIVE', '"Resume" resumes at once');

  // Rotate secret asks first, then shows the new secret once.
  resp = await submit(page, await button(await page.$(subSel), 'Rotate secret'));
  check((await page.$('#confirm')) !== null && (await page.$('[data-secret]')) === null,
    '"Rotate secret" asks first and shows no secret yet');
  resp = await submit(page, await button(await page.$('#confirm'), 'Rotate secret'));
  const secret = await page.$eval('[data-secret]', (e) => e.textContent.trim());
  check(/^whsec_/.test(secret), 'the rotated secret is shown once');
  await shot(page, '06-secret-rotated.png');

  // The delivery's own page (its link in the list): the attempts with
  // their response bodies, the payload, Replay.
  await page.goto(dashUrl, { waitUntil: 'load' });
  await submit(page, await page.$(`a[href="?delivery=${deliveryId}"]`));
  check((await page.$$('tr[data-attempt]')).length >= 1, 'the delivery page lists its attempts');
  check((await page.$eval('pre[data-payload]', (e) => e.textContent)).includes('flight.booking.confirmed'),
    'the delivery page shows the payload');
  check((await page.$('::-p-xpath(//button[normalize-space()="Replay"])')) !== null, 'the delivery page has Replay');
  await shot(page, '09-delivery-detail.png');

  // A phone's width: the page, a question and the headings read in order.
  await page.setViewport({ width: 375, height: 812, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  await page.goto(dashUrl, { waitUntil: 'load' });
  const widths = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  check(widths[0] <= widths[1], `nothing scrolls sideways at 375 px (${widths[0]} <= ${widths[1]})`);
  const levels = await page.$$eval('h1, h2, h3, h4', (hs) => hs.map((h) => Number(h.tagName[1])));
  check(levels[0] === 1 && levels.every((l, i) => i === 0 || l <= levels[i - 1] + 1),
    `headings go down one level at a time (${levels.join(' ')})`);
  const unlabelled = await page.$$eval('button, select, input:not([type=hidden])', (els) =>
    els.filter((e) => !(e.getAttribute('aria-label') || e.textContent.trim() || e.closest('label'))).length);
  check(unlabelled === 0, 'every control has a label');
  await shot(page, '07-phone.png');
  await page.goto(`${dashUrl}?confirm=revoke_key&key_id=${keyId}`, { waitUntil: 'load' });
  const w2 = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  check(w2[0] <= w2[1], 'the question fits at 375 px');
  await shot(page, '08-phone-question.png');
  await page.goto(`${dashUrl}?delivery=${deliveryId}`, { waitUntil: 'load' });
  const w3 = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  check(w3[0] <= w3[1], 'the delivery page fits at 375 px');
  await shot(page, '10-phone-delivery.png');
  await page.goto(`${dashUrl}?list=flight-bookings&status=CONFIRMED`, { waitUntil: 'load' });
  const w4 = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  check(w4[0] <= w4[1], 'a list with its filters fits at 375 px');
  const unlabelled2 = await page.$$eval('button, select, input:not([type=hidden])', (els) =>
    els.filter((e) => !(e.getAttribute('aria-label') || e.textContent.trim() || e.closest('label'))).length);
  check(unlabelled2 === 0, 'every filter has a label');
  await shot(page, '11-phone-list.png');

  // Send a test event (wide screen again): at once, to its delivery's
  // page, where the test event's attempt appears.
  await page.setViewport({ width: 1280, height: 900 });
  await page.goto(dashUrl, { waitUntil: 'load' });
  resp = await submit(page, await button(await page.$(subSel), 'Send a test event'));
  check(resp.status() === 200 && (await page.$('[data-done="test_sent"]')) !== null,
    '"Send a test event" leads to its delivery');
  check((await page.$eval('pre[data-payload]', (e) => e.textContent)).includes('flight.webhook.test'),
    'the test event is of the type flight.webhook.test');
  const testDeadline = Date.now() + 60000;
  while ((await page.$$('tr[data-attempt]')).length < 1) {
    if (Date.now() > testDeadline) throw new Error('the test event was never attempted');
    await new Promise((r) => setTimeout(r, 500));
    await page.reload({ waitUntil: 'load' });
  }
  check((await page.$eval('h1 code[data-delivery]', (e) => e.getAttribute('data-status'))) === 'DELIVERED',
    'the test event is delivered');
  await ownOnly(page, 'the test event\'s delivery page');
  await shot(page, '12-test-event.png');

  // The booking's page: its supplier calls in the timeline.
  await page.goto(`${dashUrl}?booking=${bookingId}`, { waitUntil: 'load' });
  const calls = await page.$$eval('li[data-supplier-call]', (li) => li.map((e) => e.textContent));
  check(calls.length >= 2, `the booking's timeline lists its supplier calls (${calls.length})`);
  check(calls.every((t) => / ms, request id /.test(t)), 'each call says its duration and request id');
  await ownOnly(page, 'the booking page');
  await shot(page, '13-booking-timeline.png');

  // The charts on the dashboard.
  await page.goto(dashUrl, { waitUntil: 'load' });
  check((await page.$('svg[data-chart="bookings-per-day"]')) !== null, 'the bookings chart is drawn');
  check((await page.$('table[data-chart="booking-calls"] tr[data-calls-of] svg')) !== null,
    'the supplier calls chart is drawn');
  check((await page.$('table[data-chart="funnel"] tr[data-family="flight"]')) !== null,
    'searches per booking are shown');
  await ownOnly(page, 'the dashboard');
  const figures = await page.$('#figures');
  await figures.screenshot({ path: join(shots, '14-charts.png') });
  taken.push(join(shots, '14-charts.png'));

  // The events list searched with the keyboard alone: Tab to the search
  // box, type the booking's id, Enter.
  await page.setViewport({ width: 375, height: 812, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  await page.goto(`${dashUrl}?list=events`, { waitUntil: 'load' });
  let tabs = 0;
  while (!(await page.evaluate(() => document.activeElement && document.activeElement.name === 'q'))) {
    if (++tabs > 40) throw new Error('the search box is not reachable with Tab');
    await page.keyboard.press('Tab');
  }
  await page.keyboard.type(bookingId);
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.keyboard.press('Enter')]);
  check(page.url().includes(`q=${bookingId}`), 'the search is submitted with Enter');
  const evRows = await page.$$eval('tr[data-event]', (r) => r.length);
  check(evRows >= 1 && (await page.$(`a[href="?booking=${bookingId}"]`)) !== null,
    'the events of the booking are found, linked to it');
  await fits(page, 'the events list');
  await ownOnly(page, 'the events list');
  await shot(page, '15-phone-events.png');

  await page.goto(`${dashUrl}?list=watches`, { waitUntil: 'load' });
  check((await page.$(`tr[data-watch="${watchId}"]`)) !== null, 'the watches list shows the watch');
  await fits(page, 'the watches list');
  await ownOnly(page, 'the watches list');
  await shot(page, '16-phone-watches.png');

  await page.goto(`${dashUrl}?list=deliveries&status=DELIVERED`, { waitUntil: 'load' });
  check((await page.$(`tr[data-delivery="${deliveryId}"]`)) !== null,
    'the deliveries list shows the delivery');
  await fits(page, 'the deliveries list');
  await ownOnly(page, 'the deliveries list');
  await shot(page, '18-phone-deliveries.png');

  await page.goto(`${dashUrl}?booking=${bookingId}`, { waitUntil: 'load' });
  await fits(page, 'the booking page');
  await shot(page, '17-phone-booking.png');
  await page.goto(dashUrl, { waitUntil: 'load' });
  await fits(page, 'the dashboard with its charts');
  await ownOnly(page, 'the dashboard at 375 px');
  console.log(JSON.stringify({ ok: true, steps, screenshots: taken }));
} catch (e) {
  if (page) {
    try { await shot(page, '99-failure.png'); } catch { /* the page is gone */ }
  }
  console.log(JSON.stringify({ ok: false, error: String(e && e.stack || e), steps, screenshots: taken }));
  process.exitCode = 1;
} finally {
  await browser.close();
}
