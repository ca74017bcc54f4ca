// Approvals of send_payout (docs/approvals.md) end to end: a client with no
// elicitation at all over plain HTTP (MCP 2026-07-28, stateless), and the
// server's approval page in headless Chromium (playwright-core);
// .ci/browser.sh starts the example server (with -effect-log) and runs this
// after the Inspector's checks.
//
//   node approvals.mjs SERVER_ORIGIN SCREENSHOT_DIR EFFECT_LOG
//
// Checks:
//  1. alice calls send_payout for 2,500 EUR: a tool result (not -32021)
//     naming who must approve and the link; calling again finds the same
//     approval.
//  2. alice opens the link and signs in: the page says she may not decide
//     (#whynot) and offers no form; a form POST of hers is refused (csrf,
//     403) and so is her decision by the JSON API (requester, 403).
//  3. She signs out; bob signs in: a form POST without the CSRF token is
//     refused (403) and decides nothing; alice, signed in again, posting
//     bob's form with his CSRF token is refused (403: the token is bob's);
//     bob approves with a reason on the page (#state approved).
//  4. Replaying bob's form POST is refused (already_decided, 409).
//  5. alice calls again: "Sent 2,500.00 EUR to pay_e2e...", the effect log
//     shows one run; the used link decides nothing more; the same call again
//     asks for a new approval and nothing else runs.
// Exits 1 with a message (and a screenshot) on the first failed check.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const require = createRequire(path.join(process.env.BROWSER_NODE_MODULES, 'x.js'));
const { chromium } = require('playwright-core');

const [origin, shots, effectLog] = process.argv.slice(2);
const endpoint = `${origin}/mcp`;
const payee = `pay_e2e${Date.now().toString(36)}`; // a payee of its own on a shared server
const browser = await chromium.launchPersistentContext(process.env.BROWSER_PROFILE, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
  viewport: { width: 1000, height: 900 },
});
const page = browser.pages()[0] || await browser.newPage();
page.setDefaultTimeout(20000);
let step = 'start';

async function fail(msg) {
  const shot = path.join(shots, `approvals-failed-${step.replace(/\W+/g, '-')}.png`);
  await page.screenshot({ path: shot }).catch(() => {});
  console.error(`browser: FAIL at ${step}: ${msg} (screenshot ${shot})`);
  await browser.close();
  process.exit(1);
}
function check(cond, msg) { return cond ? Promise.resolve() : fail(msg); }
const shot = (name) => page.screenshot({ path: path.join(shots, `approvals-${name}.png`), fullPage: true });

// callPayout calls send_payout as user the way a client without any
// elicitation capability does on 2026-07-28: one stateless POST.
let rpcID = 0;
async function callPayout(user, amount) {
  const params = {
    name: 'send_payout', arguments: { payee, amount },
    _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
  };
  const resp = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
      'Mcp-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'send_payout',
      Authorization: `Bearer demo-${user}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcID, method: 'tools/call', params }),
  });
  const body = await resp.text();
  let msg;
  try { msg = JSON.parse(body); } catch { return fail(`send_payout: ${resp.status} ${body.slice(0, 300)}`); }
  if (!resp.ok || msg.error || !msg.result) return fail(`send_payout: ${resp.status} ${body.slice(0, 500)}`);
  const r = msg.result;
  const text = (r.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
  return { r, text };
}

// apiDecide decides by the JSON API as user (bearer token).
async function apiDecide(id, token, user, decision) {
  const resp = await fetch(`${origin}/approvals/api/${id}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer demo-${user}` },
    body: JSON.stringify({ token, decision, reason: `by ${user} over the API` }),
  });
  return { status: resp.status, body: await resp.json().catch(() => ({})) };
}
async function apiState(id, token) {
  const resp = await fetch(`${origin}/approvals/api/${id}?t=${encodeURIComponent(token)}`, { headers: { Authorization: 'Bearer demo-bob' } });
  const body = await resp.json().catch(() => ({}));
  return body.state;
}

// postForm submits a decision form built in the page (as a browser posts
// one: same origin, the session cookie) and returns the response's status
// and the refusal code the page shows.
async function postForm(id, fields) {
  const [resp] = await Promise.all([
    page.waitForNavigation(),
    page.evaluate(({ id, fields }) => {
      const f = document.createElement('form');
      f.method = 'post';
      f.action = id;
      for (const [k, v] of Object.entries(fields)) {
        const i = document.createElement('input');
        i.type = 'hidden';
        i.name = k;
        i.value = v;
        f.appendChild(i);
      }
      document.body.appendChild(f);
      f.submit();
    }, { id, fields }),
  ]);
  const refusal = page.locator('#refusal');
  const code = await refusal.count() ? await refusal.getAttribute('data-code') : '';
  return { status: resp.status(), code };
}

function payoutRuns() {
  let lines = [];
  try { lines = readFileSync(effectLog, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)); } catch { /* none yet */ }
  return lines.filter((e) => e.tool === 'send_payout' && e.id === payee && e.event === 'start').length;
}

async function signIn(user) {
  await page.locator('#username').fill(user);
  await page.locator('#password').fill(`demo-${user}`);
  await Promise.all([page.waitForNavigation(), page.locator('#signin-submit').click()]);
  const who = await page.locator('#principal').innerText();
  await check(who === user, `signed in as ${JSON.stringify(who)}, want ${user}`);
}

async function signOutAndIn(user) {
  await Promise.all([page.waitForNavigation(), page.locator('#signout button').click()]);
  await page.locator('#signin').waitFor();
  await signIn(user);
}

try {
  step = 'alice asks, without elicitation';
  let { r, text } = await callPayout('alice', 2500);
  await check(!r.isError && /Waiting for approval/.test(text) && /other than alice/.test(text) &&
    /call send_payout again with the same arguments/.test(text), `first call: ${JSON.stringify(r)}`);
  const m = text.match(/https?:\/\/\S+\/approvals\/([A-Za-z0-9_-]+)\?t=([A-Za-z0-9_%.-]+)/);
  await check(m && m[0].startsWith(`${origin}/approvals/`), `no approval link on ${origin} in ${JSON.stringify(text)}`);
  const [link, id, token] = m;
  ({ text } = await callPayout('alice', 2500));
  // Each answer seals a new link token; the record id is the same.
  await check(text.includes(`/approvals/${id}?t=`), `the same call again does not find approval ${id}: ${JSON.stringify(text)}`);

  step = 'alice opens the link';
  await page.goto(link);
  await page.locator('#signin').waitFor();
  await shot('1-signin');
  await signIn('alice');
  const whynot = await page.locator('#whynot').innerText();
  await check(/cannot decide.*other than the requester/.test(whynot), `alice's #whynot: ${JSON.stringify(whynot)}`);
  await check(await page.locator('#approve').count() === 0, 'alice is offered the approve button');
  const summary = await page.locator('#summary').innerText();
  await check(summary.includes(`2,500.00 EUR to ${payee}`), `summary ${JSON.stringify(summary)}`);
  await shot('2-alice-may-not');

  step = "alice's own decision is refused";
  let res = await postForm(id, { t: token, decision: 'approve', reason: 'my own' });
  await check(res.status === 403 && res.code === 'csrf', `alice's form POST: ${res.status} ${res.code}, want 403 csrf`);
  const api = await apiDecide(id, token, 'alice', 'approve');
  await check(api.status === 403 && api.body?.error?.code === 'requester', `alice's API decision: ${api.status} ${JSON.stringify(api.body)}`);
  await check(await apiState(id, token) === 'pending', 'alice decided her own payout');

  step = 'bob signs in';
  await page.goto(link);
  await signOutAndIn('bob');
  await page.locator('#approve').waitFor();
  const csrf = await page.locator('#decide input[name=csrf]').inputValue();

  step = 'a POST without the CSRF token';
  res = await postForm(id, { t: token, decision: 'approve', reason: 'no csrf' });
  await check(res.status === 403 && res.code === 'csrf', `bob's form POST without the CSRF token: ${res.status} ${res.code}, want 403 csrf`);
  await shot('3-no-csrf-refused');
  await check(await apiState(id, token) === 'pending', 'a POST without the CSRF token decided');

  step = "alice posts bob's form";
  await page.goto(link);
  await signOutAndIn('alice');
  res = await postForm(id, { t: token, csrf, decision: 'approve', reason: "with bob's token" });
  await check(res.status === 403 && res.code === 'csrf', `alice's form POST with bob's CSRF token: ${res.status} ${res.code}, want 403 csrf`);
  await check(await apiState(id, token) === 'pending', "alice decided with bob's CSRF token");
  await check(payoutRuns() === 0, 'a payout ran before its approval');

  step = 'bob approves on the page';
  await page.goto(link);
  await signOutAndIn('bob');
  await page.locator('#reason').fill('Invoice 4711 checked');
  await Promise.all([page.waitForNavigation(), page.locator('#approve').click()]);
  const state = await page.locator('#state').innerText();
  await check(state === 'approved', `#state after bob approved: ${JSON.stringify(state)}`);
  const decisions = await page.locator('#decisions').innerText();
  await check(/bob approved on the approval page/.test(decisions) && decisions.includes('Invoice 4711 checked'), `decisions ${JSON.stringify(decisions)}`);
  await check(await page.locator('#approve').count() === 0, 'a decided request still offers the approve button');
  await shot('4-approved');

  step = "replaying bob's form";
  res = await postForm(id, { t: token, csrf, decision: 'decline', reason: 'replayed' });
  await check(res.status === 409 && res.code === 'already_decided', `bob's replayed form POST: ${res.status} ${res.code}, want 409 already_decided`);
  await shot('5-replay-refused');
  await check(await apiState(id, token) === 'approved', 'the replay changed the decision');

  step = 'alice calls again';
  ({ r, text } = await callPayout('alice', 2500));
  await check(!r.isError && text.startsWith(`Sent 2,500.00 EUR to ${payee}; payout po_`), `after the approval: ${JSON.stringify(r)}`);
  await check(payoutRuns() === 1, `${payoutRuns()} payout runs in ${effectLog}, want 1`);

  step = 'the used approval';
  const used = await apiDecide(id, token, 'bob', 'approve');
  await check(used.status === 409, `a decision on the used link: ${used.status} ${JSON.stringify(used.body)}`);
  await page.goto(link);
  await check(await page.locator('#approve').count() === 0 && await page.locator('#whynot').count() === 1,
    'the used link offers a decision');
  await shot('6-used-link');
  ({ r, text } = await callPayout('alice', 2500));
  const again = text.match(/\/approvals\/([A-Za-z0-9_-]+)\?t=/);
  await check(!r.isError && again && again[1] !== id, `the same call after the payout: ${JSON.stringify(text)}`);
  await check(payoutRuns() === 1, `${payoutRuns()} payout runs after the used approval, want 1`);
} catch (e) {
  await fail(e.message.split('\n')[0]);
}
console.log(`browser: ok on approvals: alice's send_payout (no elicitation) waited; alice refused on the page and the API; a POST without the CSRF token refused; bob approved on the page; the replayed form refused; alice's call sent the payout once; the same call again needs a new approval`);
await browser.close();
