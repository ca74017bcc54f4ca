// Drives the MCP Inspector web UI in headless Chromium (playwright-core)
// against the example server; .ci/browser.sh starts both and runs this.
//
//   node inspector.mjs INSPECTOR_URL SCREENSHOT_DIR PROTOCOL_VERSION SERVER_ORIGIN
//
// Checks, on the protocol version given (default 2026-07-28: questions in
// input_required results; an older one: asked over the session), what a
// person sees:
//  1. provision_workspace's plan form lists its fields in spec order (tier,
//     then seats; not alphabetically) with titles derived from the names
//     ("Tier", "Seats").
//  2. close_support_ticket's reason form, answered with a comment the
//     server refuses (it looks like it holds a password), is asked again
//     saying what to correct, with the closing reason already chosen kept;
//     corrected, the ticket closes.
//  3. connect_calendar's URL-mode elicitation: the dialog shows the
//     server's calendar page; "completed" without granting is asked again;
//     granted on the page (opened from the dialog, signed in as alice),
//     the calendar connects.
// Exits 1 with a message (and a screenshot) on the first failed check.
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(path.join(process.env.BROWSER_NODE_MODULES, 'x.js'));
const { chromium } = require('playwright-core');

const [url, shots, wantEra = '2026-07-28', serverOrigin] = process.argv.slice(2);
// A fresh profile (BROWSER_PROFILE, a new empty folder) every run.
const browser = await chromium.launchPersistentContext(process.env.BROWSER_PROFILE, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
  viewport: { width: 1400, height: 1000 },
});
const page = browser.pages()[0] || await browser.newPage();
page.setDefaultTimeout(20000);
let step = 'start';

async function fail(msg) {
  const shot = path.join(shots, `${wantEra}-failed-${step.replace(/\W+/g, '-')}.png`);
  await page.screenshot({ path: shot }).catch(() => {});
  console.error(`browser: FAIL at ${step}: ${msg} (screenshot ${shot})`);
  await browser.close();
  process.exit(1);
}
function check(cond, msg) { return cond ? Promise.resolve() : fail(msg); }

// The labels of a dialog's form, in the order the page shows them.
async function formLabels(dlg) {
  return (await dlg.locator('label').allInnerTexts())
    .map((l) => l.replace(/\s*\*\s*$/, '').trim())
    .filter((l) => l && l !== 'Edit as JSON');
}

async function openTool(name) {
  await page.getByText('Tools', { exact: true }).click();
  await page.getByRole('button', { name: new RegExp(`\\b${name}\\b`) }).click();
  await page.getByRole('button', { name: 'Execute Tool' }).waitFor();
}

try {
  step = 'connect';
  await page.goto(url);
  await page.getByRole('switch').first().click({ force: true });
  await page.getByText('Connected', { exact: true }).waitFor();
  const era = await page.getByText(/MCP \d{4}-\d{2}-\d{2}/).first().innerText();
  await check(era.includes(wantEra), `connected with ${era}, want MCP ${wantEra}`);

  step = 'plan form in spec order';
  await openTool('provision_workspace');
  await page.getByRole('textbox', { name: 'team' }).fill('demo-team');
  await page.getByRole('button', { name: 'Execute Tool' }).click();
  let dlg = page.getByRole('dialog');
  await dlg.getByText('Choose a plan and the number of seats').waitFor();
  const plan = await formLabels(dlg);
  await check(JSON.stringify(plan) === JSON.stringify(['Tier', 'Seats']), `plan form labels ${JSON.stringify(plan)}, want ["Tier","Seats"]`);
  await page.screenshot({ path: path.join(shots, `${wantEra}-1-plan-form.png`) });
  await dlg.getByRole('button', { name: 'Cancel' }).click();
  await dlg.waitFor({ state: 'detached' });

  step = 'reason form';
  await openTool('close_support_ticket');
  await page.getByRole('textbox', { name: 'ticketId' }).fill('12346');
  await page.getByRole('button', { name: 'Execute Tool' }).click();
  dlg = page.getByRole('dialog');
  await dlg.getByText('Provide the reason for closing ticket 12346').waitFor();
  const reason = await formLabels(dlg);
  await check(JSON.stringify(reason) === JSON.stringify(['Closing reason', 'Comment for the customer']),
    `reason form labels ${JSON.stringify(reason)}, want ["Closing reason","Comment for the customer"]`);
  const inputs = dlg.locator('input:not([type]), input[type=text], textarea');
  await inputs.nth(0).click();
  await page.getByRole('option', { name: 'Issue resolved' }).click();
  await inputs.nth(1).fill('Fixed; the admin password: hunter2 was reset');
  await dlg.getByRole('button', { name: 'Submit' }).click();

  step = 're-ask keeps the earlier answer';
  dlg = page.getByRole('dialog');
  await dlg.getByText('Please correct').waitFor();
  const text = await dlg.innerText();
  await check(/comment/i.test(text) && /password|secret/i.test(text), `the re-ask does not say what to correct: ${JSON.stringify(text)}`);
  const kept = await dlg.locator('input:not([type]), input[type=text], textarea').nth(0).inputValue();
  await check(kept === 'Issue resolved', `closing reason on the re-ask is ${JSON.stringify(kept)}, want "Issue resolved" kept`);
  const comment = await dlg.locator('input:not([type]), input[type=text], textarea').nth(1).inputValue();
  await check(comment === '', `the refused comment is shown again: ${JSON.stringify(comment)}`);
  await page.screenshot({ path: path.join(shots, `${wantEra}-2-reask.png`) });

  step = 'corrected answer completes';
  await dlg.locator('input:not([type]), input[type=text], textarea').nth(1).fill('Fixed by restarting the VPN gateway.');
  await dlg.getByRole('button', { name: 'Submit' }).click();
  await dlg.waitFor({ state: 'detached' });
  await page.getByText('Closed ticket 12346 (resolved).').first().waitFor();
  await page.screenshot({ path: path.join(shots, `${wantEra}-3-closed.png`) });

  // 3. URL mode (connect_calendar, the Inspector signed in as alice with a
  // demo bearer header): accepting without finishing the page is asked
  // again; the page opened from the dialog, signed in and granted, then
  // accepted, connects the calendar.
  step = 'URL-mode elicitation';
  await openTool('connect_calendar');
  await page.locator('input:not([type]), input[type=text]').nth(1).click();
  await page.getByRole('option', { name: 'Work calendar' }).click();
  await page.getByRole('button', { name: 'Execute Tool' }).click();
  dlg = page.getByRole('dialog');
  await dlg.getByText('Open the calendar page').waitFor();
  const shown = await dlg.innerText();
  await check(new RegExp(`${serverOrigin.replace(/[.]/g, '\\.')}/oob/calendar/[0-9a-f]{32}\\?provider=work`).test(shown),
    `the URL dialog does not show the calendar page of ${serverOrigin}: ${JSON.stringify(shown)}`);
  await dlg.getByRole('button', { name: 'Open in Browser' }).click();
  await dlg.getByRole('button', { name: /completed/ }).click();
  step = 'URL step accepted without the grant';
  dlg = page.getByRole('dialog');
  await dlg.getByText('has no grant from you yet').waitFor();
  await page.screenshot({ path: path.join(shots, `${wantEra}-4-url-asked-again.png`) });
  step = 'URL step completed on the page';
  for (const p of browser.pages().slice(1)) await p.close();
  const [popup] = await Promise.all([browser.waitForEvent('page'), dlg.getByRole('button', { name: 'Open in Browser' }).click()]);
  await popup.waitForLoadState();
  await popup.locator('#token').fill('demo-alice');
  await popup.locator('#grant').click();
  await popup.locator('#done').waitFor();
  await popup.screenshot({ path: path.join(shots, `${wantEra}-5-calendar-page.png`) });
  await popup.close();
  await dlg.getByRole('button', { name: /completed/ }).click();
  await dlg.waitFor({ state: 'detached' });
  await page.getByText('Your work calendar is connected (grant grant-').first().waitFor();
  await page.screenshot({ path: path.join(shots, `${wantEra}-6-connected.png`) });
} catch (e) {
  await fail(e.message.split('\n')[0]);
}
console.log(`browser: ok on ${wantEra}: plan form in spec order with titles (Tier, Seats); reason re-asked with the closing reason kept; ticket closed; URL mode: asked again until granted on the page, then connected`);
await browser.close();
