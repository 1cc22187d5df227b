/// <reference lib="dom" />
/**
 * The syncs page's list past one page, in headless Chromium (as syncs-page.test.ts) against a real
 * coordinator process with authentication on and real Redis. The syncs are stored straight into the
 * coordinator's store (ended, so nothing runs): 450 in two tables, newest first by creation time
 * (pairs of one time, so ids order the ties). The page lists 200 at a time and a table's page 20;
 * what it shows is compared with GET /v1/syncs walked by its cursor. Every wait polls what the page
 * shows, never a fixed time.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { after, afterEach, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { chromium, type Browser, type Page } from 'playwright-core';
import { SyncStore, newToken } from '@tributary/coordinator';
import { services } from '@tributary/testkit';
import { ORDERS_COLUMNS, plannedSyncRecord, spawnListeningCoordinator, stop, syncEnv } from '../sync/harness.ts';

const CHROMIUM = process.env.TRIBUTARY_CHROMIUM ?? '/usr/bin/chromium';
const DB = 'paged';
const REASON = { code: 'SYNC_ABORT_REQUESTED', message: 'stopped by the test', retryable: false, context: {} };
/** What the page's "Load older" asks with, made into a cursor the listing never returned. */
const FORGED_CURSOR = Buffer.from('{"k":"syncs","s":"soon","id":"x"}').toString('base64url');

describe('the syncs page pages through every sync (real coordinator process, real Redis, auth on)', () => {
  const e = syncEnv('ui-paging');
  const reader = newToken('read', 'paging-reader');
  const admin = newToken('admin', 'paging-admin');
  const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
  const store = new SyncStore(redis, e.prefix);
  let coordinator: ChildProcess;
  let url: string;
  let browser: Browser;
  let page: Page;

  /** Stores an ended sync (ABORTED, nothing staged) created at `createdAtMs`. */
  const seed = async (id: string, table: string, createdAtMs: number) => {
    assert.equal(await store.create(plannedSyncRecord(id, DB, table), createdAtMs), true, id);
    await store.apply(id, { type: 'abort', reason: REASON });
    await store.apply(id, { type: 'cleaned' });
  };
  /** Every sync id of a listing, newest first, as the API gives them page by page. */
  const listed = async (filter = ''): Promise<string[]> => {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const response: Response = await fetch(`${url}/v1/syncs?limit=500${filter}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`, { headers: { authorization: `Bearer ${reader.token}` } });
      assert.equal(response.status, 200);
      const body = (await response.json()) as { syncs: { id: string }[]; nextCursor: string | null };
      ids.push(...body.syncs.map((s) => s.id));
      cursor = body.nextCursor;
    } while (cursor !== null);
    return ids;
  };
  /** The sync ids the page lists, top to bottom. */
  const shown = (selector = 'table[data-testid=syncs] tr[data-sync]') => page.locator(selector).evaluateAll((rows) => rows.map((r) => r.getAttribute('data-sync') ?? ''));
  /** Waits until the page lists `count` syncs (the main list, or a table's). */
  const waitForRows = (count: number, selector = 'table[data-testid=syncs] tr[data-sync]') =>
    page.waitForFunction(([s, n]) => document.querySelectorAll(s).length === n, [selector, count] as const, { timeout: 30_000 });
  /** Waits for the next refresh of the page (its "Updated hh:mm:ss" moves on). */
  const nextRefresh = async () => {
    const before = await page.locator('#status').textContent();
    await page.waitForFunction((was) => /^Updated /.test(document.getElementById('status')?.textContent ?? '') && document.getElementById('status')?.textContent !== was, before, { timeout: 30_000 });
  };
  const openList = async () => {
    await page.goto(`${url}/ui/#/`);
    await page.reload();
    await waitForRows(200);
  };

  before(async () => {
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install chromium (infra/up.sh does)`);
    ({ child: coordinator, url } = await spawnListeningCoordinator(e, { TRIBUTARY_AUTH_TOKENS: [reader.entry, admin.entry].join(',') }));
    for (const name of ['a', 'b']) {
      const created = await fetch(`${url}/v1/tables`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ database: DB, name, columns: ORDERS_COLUMNS }),
      });
      assert.equal(created.status, 201, await created.text());
    }
    // 450 syncs; table b has 40 of them (two full pages of its list, then nothing).
    await Promise.all(Array.from({ length: 450 }, (_, i) => seed(`pg-${String(i).padStart(3, '0')}`, i % 10 === 0 && i < 400 ? 'b' : 'a', 5000 + Math.floor(i / 2))));
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    page = await browser.newPage();
    await page.goto(`${url}/ui/`);
    await page.waitForURL(/\/admin\/login\?/);
    await page.locator('input[name=token]').fill(reader.token);
    await page.locator('button[type=submit]').click();
    await page.waitForURL(`${url}/ui/`);
  });
  // A test that failed with a request rewritten leaves no rewriting to the next.
  afterEach(() => page?.unrouteAll({ behavior: 'ignoreErrors' }));
  after(async () => {
    await browser?.close();
    if (coordinator !== undefined) await stop(coordinator);
    await redis.quit();
  });

  test('the newest 200 first; "Load older" adds the next pages, each sync once and in order, and is gone at the end', async () => {
    const all = await listed();
    assert.equal(all.length, 450);
    assert.equal(all[0], 'pg-449');
    await openList();
    assert.deepEqual(await shown(), all.slice(0, 200));
    assert.match((await page.getByTestId('syncs-count').textContent()) ?? '', /^The 200 newest syncs, newest first/);
    await page.getByTestId('load-older').click();
    await waitForRows(400);
    assert.deepEqual(await shown(), all.slice(0, 400));
    assert.match((await page.getByTestId('syncs-count').textContent()) ?? '', /^The 400 newest syncs, newest first: the 200 newest refresh every second, the 200 older/);
    await page.getByTestId('load-older').click();
    await waitForRows(450);
    assert.deepEqual(await shown(), all);
    await page.getByTestId('syncs-end').waitFor();
    assert.equal(await page.getByTestId('load-older').count(), 0, 'no "Load older" at the end');
    assert.equal(await page.getByTestId('syncs-count').textContent(), 'All 450 syncs, newest first.');
    // The page goes on refreshing: the same list, nothing lost or doubled.
    await nextRefresh();
    await nextRefresh();
    assert.deepEqual(await shown(), all);
    assert.equal(await page.getByTestId('load-older').count(), 0);
  });

  test('syncs started after older pages were loaded appear on top; the refresh skips none and shows none twice', async () => {
    await openList();
    await page.getByTestId('load-older').click();
    await waitForRows(400);
    const before = await listed();
    // Newer than every listed sync: the newest page (200) now ends 7 syncs earlier than the page loaded after it began.
    const added = Array.from({ length: 7 }, (_, i) => `pn-${i}`);
    await Promise.all(added.map((id, i) => seed(id, 'a', 900_000 + i)));
    await page.waitForFunction(() => document.querySelector('table[data-testid=syncs] tr[data-sync]')?.getAttribute('data-sync') === 'pn-6', undefined, { timeout: 30_000 });
    const all = await listed();
    assert.deepEqual(all, [...[...added].reverse(), ...before]);
    assert.deepEqual(await shown(), all.slice(0, 407), 'the 7 new, the 200 that were the newest page, then the 200 older as loaded');
    await nextRefresh();
    assert.deepEqual(await shown(), all.slice(0, 407));
    await page.getByTestId('load-older').click();
    await waitForRows(457);
    assert.deepEqual(await shown(), all);
    await page.getByTestId('syncs-end').waitFor();
  });

  test('a cursor the coordinator refuses (400 SYNC_CURSOR_INVALID): the list starts again from the newest, saying so without the cursor', async () => {
    await openList();
    const all = await listed();
    // The request leaves the page with its cursor replaced: the real coordinator refuses it.
    let forged = 0;
    await page.route(/\/v1\/syncs\?.*cursor=/, async (route) => {
      forged++;
      const forgedUrl = new URL(route.request().url());
      forgedUrl.searchParams.set('cursor', FORGED_CURSOR);
      await route.continue({ url: forgedUrl.toString() });
    });
    await page.getByTestId('load-older').click();
    const notice = await page.getByTestId('syncs-notice').textContent();
    assert.equal(notice, 'The list could not go on from where it was (the server no longer accepts its place); it starts again from the newest syncs.');
    assert.ok(forged >= 1);
    // Where the user who clicked at the bottom of the list looks, not above the list.
    const inView = await page.getByTestId('syncs-notice').evaluate((el) => {
      const box = el.getBoundingClientRect();
      return box.top >= 0 && box.bottom <= window.innerHeight;
    });
    assert.ok(inView, 'the notice is in view');
    await page.unroute(/\/v1\/syncs\?.*cursor=/);
    await waitForRows(200);
    assert.deepEqual(await shown(), all.slice(0, 200));
    assert.match((await page.getByTestId('syncs-count').textContent()) ?? '', /^The 200 newest syncs/);
    // The place is lost, not the list: "Load older" goes on from the newest page.
    await page.getByTestId('load-older').click();
    await waitForRows(400);
    assert.deepEqual(await shown(), all.slice(0, 400));
    assert.equal(await page.getByTestId('syncs-notice').count(), 0, 'the notice goes with the next load');
  });

  test("a table's page lists its syncs 20 at a time, the table's filter carried into each page, until the end", async () => {
    const ofB = await listed(`&database=${DB}&table=b`);
    assert.equal(ofB.length, 40);
    const items = 'ul[data-testid=table-syncs] li[data-sync]';
    await page.goto(`${url}/ui/#/table/${DB}/b`);
    await waitForRows(20, items);
    assert.deepEqual(await shown(items), ofB.slice(0, 20));
    await page.getByTestId('load-older').click();
    await waitForRows(40, items);
    assert.deepEqual(await shown(items), ofB);
    assert.equal(await page.getByTestId('syncs-count').textContent(), 'The 40 newest syncs of this table, newest first.');
    // The second page was full, so there may be more: the next is empty, and that is the end.
    await page.getByTestId('load-older').click();
    await page.getByTestId('syncs-end').waitFor();
    assert.equal(await page.getByTestId('load-older').count(), 0);
    assert.equal(await page.getByTestId('syncs-count').textContent(), 'All 40 syncs of this table, newest first.');
    assert.deepEqual(await shown(items), ofB);

    // A refused cursor here too: the table's list starts again from its newest page.
    await page.goto(`${url}/ui/#/tables`);
    await page.goto(`${url}/ui/#/table/${DB}/b`);
    await waitForRows(20, items);
    await page.route(/\/v1\/syncs\?.*cursor=/, async (route) => {
      const forgedUrl = new URL(route.request().url());
      forgedUrl.searchParams.set('cursor', FORGED_CURSOR);
      await route.continue({ url: forgedUrl.toString() });
    });
    await page.getByTestId('load-older').click();
    await page.getByTestId('syncs-notice').filter({ hasText: /starts again from the newest/ }).waitFor();
    await page.unroute(/\/v1\/syncs\?.*cursor=/);
    await waitForRows(20, items);
    assert.deepEqual(await shown(items), ofB.slice(0, 20));
    await page.getByTestId('load-older').click();
    await waitForRows(40, items);
    assert.deepEqual(await shown(items), ofB);
  });
});
