/// <reference lib="dom" />
/**
 * The syncs page (/ui) in headless Chromium (Debian's `chromium`, driven by playwright-core)
 * against a real coordinator process with authentication on, a real worker process, Redis and
 * MinIO: sign-in through the login form, a running sync's progress moving, a failed sync's reason,
 * a hostile reason shown as inert text, a table's snapshots and file counts, signing out. Every wait polls what
 * the page shows (waitForFunction, waitForURL), never a fixed time.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { LOGIN_PATH, SESSION_COOKIE, newToken } from '@tributary/coordinator';
import { ORDERS_COLUMNS, generatorSource, spawnListeningCoordinator, spawnWorker, stop, syncEnv, waitUntil } from '../sync/harness.ts';

/** Debian's package (infra/up.sh installs it); TRIBUTARY_CHROMIUM names another binary. */
const CHROMIUM = process.env.TRIBUTARY_CHROMIUM ?? '/usr/bin/chromium';
const HOSTILE = `<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script><b>bold</b> & "quoted"`;

describe('the syncs page in headless Chromium (real coordinator and worker processes, auth on)', () => {
  const e = syncEnv('ui-page');
  const reader = newToken('read', 'ui-reader');
  const operator = newToken('operate', 'ui-operator');
  const admin = newToken('admin', 'ui-admin');
  let coordinator: ChildProcess;
  let worker: ChildProcess;
  let url: string;
  let browser: Browser;
  let page: Page;

  const api = async (method: string, path: string, body?: unknown, token = admin.token) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, json: () => JSON.parse(text) as Record<string, unknown>, text };
  };
  const startSync = async (table: string, source: Record<string, unknown>): Promise<string> => {
    const response = await api('POST', '/v1/syncs', { table: { database: 'shop', table }, source }, operator.token);
    assert.equal(response.status, 202, response.text);
    return String(response.json().id);
  };
  const phaseOf = async (id: string): Promise<string> => String((await api('GET', `/v1/syncs/${id}`)).json().phase);
  const text = (selector: string) => page.locator(selector).first().textContent();

  before(async () => {
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install chromium (infra/up.sh does)`);
    ({ child: coordinator, url } = await spawnListeningCoordinator(e, { TRIBUTARY_AUTH_TOKENS: [reader.entry, operator.entry, admin.entry].join(',') }));
    worker = await spawnWorker(e, { TRIBUTARY_WORKER_CONCURRENCY: '1' });
    for (const name of ['ui_orders', 'ui_failing']) {
      const created = await api('POST', '/v1/tables', { database: 'shop', name, columns: ORDERS_COLUMNS, partitionKeys: ['store_id'] });
      assert.equal(created.status, 201, created.text);
    }
    // As root (CI containers) Chromium needs --no-sandbox.
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    page = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    if (worker !== undefined) await stop(worker);
    if (coordinator !== undefined) await stop(coordinator);
  });

  test('a browser without a token is sent to the login form; after signing in the page loads, with no token in its source or URL', async () => {
    await page.goto(`${url}/ui/`);
    await page.waitForURL(/\/admin\/login\?next=%2Fui%2F$/);
    await page.locator('input[name=token]').fill(reader.token);
    await page.locator('button[type=submit]').click();
    await page.waitForURL(`${url}/ui/`);
    await page.locator('#status').filter({ hasText: /^Updated / }).waitFor();
    assert.ok(!page.url().includes(reader.token));
    const sources = [await page.content(), ...(await Promise.all(['/ui/', '/ui/app.js'].map(async (p) => (await api('GET', p)).text)))];
    for (const source of sources) assert.ok(!source.includes(reader.token) && !source.includes(admin.token), 'no token in the page');
    const cookie = (await page.context().cookies()).find((c) => c.name === SESSION_COOKIE);
    assert.equal(cookie?.httpOnly, true, 'the session cookie is HttpOnly: the page script cannot read it');
    assert.ok(!cookie.value.includes(reader.token), 'the cookie holds a session id, not the token');
    assert.equal(await page.evaluate(() => document.cookie), '');
  });

  test("a running sync's progress moves: shards, rows, rate and ETA while it runs; per-shard bars; links to its bull-board jobs", async () => {
    // 4 shards of 40 batches, 100 ms each, one at a time: about 4 s per shard.
    const id = await startSync('ui_orders', generatorSource(4, 2000, { batchRows: 50, faults: { delayMsPerBatch: 100 } }));
    await page.goto(`${url}/ui/`);
    await page.locator(`tr[data-sync="${id}"][data-table="shop.ui_orders"]`).waitFor();
    await page.goto(`${url}/ui/#/sync/${id}`);
    const progress = '[data-testid=sync-progress]';
    await page.locator(progress).waitFor();
    // Three different progress texts, each seen while the page shows the sync PREPARING.
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      const shown = await page.waitForFunction(
        ([selector, previous]) => {
          const value = document.querySelector(selector)?.textContent ?? '';
          const phase = document.querySelector('dd .phase')?.textContent;
          return value !== previous && value !== '' ? { value, phase } : false;
        },
        [progress, seen.at(-1) ?? ''] as const,
        { timeout: 60_000 },
      );
      const { value, phase } = (await shown.jsonValue()) as { value: string; phase: string };
      if (i < 2) assert.equal(phase, 'PREPARING', `"${value}" seen while running`);
      seen.push(value);
    }
    const parsed = seen.map((s) => /^(\d+)\/4 shards · ([\d,—]+) rows$/.exec(s));
    assert.ok(parsed.every((m) => m !== null), seen.join(' | '));
    const done = parsed.map((m) => Number(m?.[1]));
    assert.ok(done[0]! <= done[1]! && done[1]! <= done[2]!, `shards done never go back: ${seen.join(' | ')}`);
    // Rate and ETA become numbers while the sync runs.
    await page.waitForFunction(
      () =>
        document.querySelector('dd .phase')?.textContent === 'PREPARING' &&
        /\d/.test(document.querySelector('[data-testid=sync-rate]')?.textContent ?? '') &&
        /\d/.test(document.querySelector('[data-testid=sync-eta]')?.textContent ?? ''),
      undefined,
      { timeout: 60_000 },
    );
    assert.equal(await page.locator('tr[data-shard] .bar').count(), 4, 'one progress bar per shard');
    // Each shard links to its job on the dashboard, and that job exists there.
    const links = await page.locator('[data-testid=job-link]').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
    assert.equal(links.length, 4);
    for (const href of links) {
      const match = /^\/admin\/queues\/queue\/write-shard\/([^/]+)$/.exec(href);
      assert.ok(match !== null, href);
      const job = await page.evaluate(async (path) => (await fetch(path)).status, `/admin/queues/api/queues/write-shard/${match[1]}`);
      assert.equal(job, 200, `${href} is a job of the dashboard`);
    }
    // The end: COMMITTED with its snapshot, every shard's bar full.
    await page.waitForFunction(() => document.querySelector('dd .phase')?.textContent === 'COMMITTED', undefined, { timeout: 90_000 });
    assert.equal(await phaseOf(id), 'COMMITTED');
    assert.equal(await text(progress), '4/4 shards · 8,000 rows');
    const widths = await page.locator('tr[data-shard] .bar > span').evaluateAll((spans) => spans.map((s) => (s as HTMLElement).style.width));
    assert.deepEqual(widths, ['100%', '100%', '100%', '100%']);
  });

  test('a failed sync shows its reason on the list and on its page', async () => {
    const id = await startSync('ui_failing', generatorSource(2, 100, { batchRows: 10, faults: { badRow: { shard: 1, position: 42 } } }));
    await waitUntil(async () => (await phaseOf(id)) === 'ABORTED', 'the sync aborted', 60_000);
    await page.goto(`${url}/ui/`);
    const reason = await page.waitForFunction(
      (syncId) => {
        const cell = document.querySelector(`tr[data-sync="${syncId}"] [data-testid=reason]`);
        return cell !== null && cell.textContent !== '' ? cell.textContent : false;
      },
      id,
      { timeout: 30_000 },
    );
    assert.match(String(await reason.jsonValue()), /^SOURCE_ROW_INVALID: /);
    assert.equal(await text(`tr[data-sync="${id}"] .phase`), 'ABORTED');
    await page.goto(`${url}/ui/#/sync/${id}`);
    await page.waitForFunction(() => (document.querySelector('dd [data-testid=reason]')?.textContent ?? '').startsWith('SOURCE_ROW_INVALID'), undefined, { timeout: 30_000 });
  });

  test('a hostile abort reason is shown as inert text: no element made from it, no script run', async () => {
    const id = await startSync('ui_failing', generatorSource(2, 2000, { batchRows: 10, faults: { delayMsPerBatch: 100 } }));
    await waitUntil(async () => (await phaseOf(id)) === 'PREPARING', 'the sync runs');
    const aborted = await api('POST', `/v1/syncs/${id}/abort`, { reason: HOSTILE }, operator.token);
    assert.equal(aborted.status, 202, aborted.text);
    await waitUntil(async () => (await phaseOf(id)) === 'ABORTED', 'the sync aborted', 60_000);
    for (const view of ['/ui/', `/ui/#/sync/${id}`]) {
      await page.goto(`${url}${view}`);
      const scope = view === '/ui/' ? `tr[data-sync="${id}"]` : 'dd';
      const shown = await page.waitForFunction(
        (selector) => {
          const cell = document.querySelector(`${selector} [data-testid=reason]`);
          return cell !== null && cell.textContent !== '' ? { text: cell.textContent, children: cell.children.length } : false;
        },
        scope,
        { timeout: 30_000 },
      );
      const { text: shownText, children } = (await shown.jsonValue()) as { text: string; children: number };
      assert.ok(shownText.includes(HOSTILE), `the reason is shown verbatim: ${shownText}`);
      assert.equal(children, 0, 'no element was made from it');
      assert.equal(await page.locator('main img, main script, main b').count(), 0);
      assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined, 'no script ran');
    }
  });

  test("a table's page shows its counts, its snapshots and each snapshot's file count", async () => {
    const described = (await api('GET', '/v1/tables/shop/ui_orders')).json() as { fileCount: number; rowCount: number; latestSnapshotId: number };
    assert.equal(described.latestSnapshotId, 1);
    await page.goto(`${url}/ui/#/table/shop/ui_orders`);
    await page.locator('tr[data-snapshot="1"]').waitFor({ timeout: 30_000 });
    assert.equal(await text('[data-testid=table-files]'), described.fileCount.toLocaleString('en-US'));
    assert.equal(await text('[data-testid=table-rows]'), '8,000');
    assert.equal(await text('tr[data-snapshot="1"] [data-testid=snapshot-files]'), described.fileCount.toLocaleString('en-US'));
    assert.ok(described.fileCount >= 4, `${described.fileCount} files`);
    await page.goto(`${url}/ui/#/tables`);
    await page.locator('a[href="#/table/shop/ui_orders"]').waitFor();
    await page.locator('a[href="#/table/shop/ui_failing"]').waitFor();
  });

  test('signing out ends the session: the page goes to the login form, and its old cookie opens nothing', async () => {
    await page.goto(`${url}/ui/`);
    await page.locator('#status').filter({ hasText: /^Updated / }).waitFor();
    const before = (await page.context().cookies()).find((c) => c.name === SESSION_COOKIE);
    assert.ok(before !== undefined);
    const withOld = (path: string) => fetch(`${url}${path}`, { headers: { cookie: `${SESSION_COOKIE}=${before.value}` }, redirect: 'manual' });
    assert.equal((await withOld('/v1/syncs')).status, 200);
    await page.locator('#signout button').click();
    await page.waitForURL(`${url}${LOGIN_PATH}?next=%2Fui%2F`);
    assert.equal((await page.context().cookies()).find((c) => c.name === SESSION_COOKIE), undefined, 'the browser dropped the cookie');
    // The session is gone on the server too: a copy of the cookie kept elsewhere is refused.
    const refused = await withOld('/v1/syncs');
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { code: string }).code, 'AUTH_TOKEN_INVALID');
    await page.goto(`${url}/ui/`);
    await page.waitForURL(/\/admin\/login\?next=%2Fui%2F$/);
  });
});
