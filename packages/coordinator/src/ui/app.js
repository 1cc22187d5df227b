/*
 * The syncs page: plain DOM, no build step. Reads the coordinator's API with the browser's login
 * session cookie (same origin; the page never sees or stores a token, nor the session id: the
 * cookie is HttpOnly) and renders every server value with textContent or as a text node, never as
 * HTML. Views, by the URL's hash:
 *   #/                 syncs, newest first, page by page ("Load older"): table, state, start/end, rows, snapshot, reason
 *   #/sync/<id>        one sync: per-shard progress bars, rows/s, ETA, links to bull-board jobs
 *   #/tables           the warehouse's tables
 *   #/table/<db>/<t>   one table: counts, snapshots with their file counts, its syncs
 * Running views poll every second. "Sign out" (index.html) is a plain form posting to
 * /admin/logout, which ends the session and comes back to the login form.
 */
'use strict';

const POLL_MS = 1000;
const DASHBOARD = '/admin/queues';
const LOGIN = '/admin/login?next=/ui/';
/** The BullMQ queue and job id of a shard (the coordinator's sync/flow.ts names them so). */
const SHARD_QUEUE = 'write-shard';
const shardJobId = (syncId, shardId) => `shard-${syncId}-${shardId}`;
const TERMINAL = new Set(['COMMITTED', 'ABORTED']);

/** Builds an element; strings among the children become text nodes, never markup. */
function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null) continue;
    if (key === 'text') node.textContent = String(value);
    else if (key === 'class') node.className = value;
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat()) if (child !== undefined && child !== null) node.append(child);
  return node;
}

class HttpProblem extends Error {
  constructor(status, body) {
    super(body && typeof body.code === 'string' ? `${body.code}: ${body.detail ?? ''}` : `HTTP ${status}`);
    this.status = status;
    this.code = body && typeof body.code === 'string' ? body.code : undefined;
  }
}

async function api(path) {
  const response = await fetch(path, { credentials: 'same-origin', headers: { accept: 'application/json' } });
  const body = await response.json().catch(() => undefined);
  if (!response.ok) throw new HttpProblem(response.status, body);
  return body;
}

const seg = (s) => encodeURIComponent(s);
const fmtInt = (n) => (n === null || n === undefined ? '—' : Number(n).toLocaleString('en-US'));
const fmtTime = (iso) => (iso ? new Date(iso).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '—');
function fmtDuration(ms) {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}
const fmtRate = (r) => (r === null || !Number.isFinite(r) ? '—' : `${Math.round(r).toLocaleString('en-US')} rows/s`);
const tableName = (t) => `${t.database}.${t.table}`;
const started = (timings) => timings.PLANNED ?? Object.values(timings).sort()[0];
const ended = (timings) => timings.COMMITTED ?? timings.ABORTED;

function phaseCell(phase) {
  return h('span', { class: `phase phase-${phase}`, text: phase });
}

function reasonText(reason) {
  return reason ? `${reason.code}: ${reason.message}` : '';
}

function bar(fraction, kind, label) {
  const fill = h('span');
  if (fraction !== null) fill.style.width = `${Math.round(Math.min(1, Math.max(0, fraction)) * 100)}%`;
  return h('div', { class: `bar ${fraction === null ? 'unknown' : kind}`, role: 'progressbar', 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': fraction === null ? undefined : Math.round(fraction * 100), title: label }, fill);
}

// ---------------------------------------------------------------------------------------------
// What a sync's detail says about its progress (ops fields used when the server gives them)
// ---------------------------------------------------------------------------------------------

function lastAttempt(shard) {
  return shard.attempts.length === 0 ? undefined : shard.attempts[shard.attempts.length - 1];
}

function shardState(shard, phase) {
  if (shard.acceptedAttempt !== null) return 'done';
  const last = lastAttempt(shard);
  if (last === undefined) return TERMINAL.has(phase) ? 'not run' : 'pending';
  return last.status;
}

/** Rows a shard has read: its own count while running (when reported), else its accepted attempt's. */
function shardRows(shard) {
  const last = lastAttempt(shard);
  const value = shard.rows ?? last?.rows ?? null;
  return typeof value === 'number' ? value : null;
}

/** Rows per second of a shard from its own times, when the server reports them. */
function shardRate(shard) {
  const rows = shardRows(shard);
  const last = lastAttempt(shard);
  const from = shard.startedAt ?? last?.startedAt;
  const to = shard.updatedAt ?? last?.updatedAt ?? last?.finishedAt;
  if (rows === null || !from || !to) return null;
  const seconds = (Date.parse(to) - Date.parse(from)) / 1000;
  return seconds > 0 ? rows / seconds : null;
}

/** Client-side rates from successive polls of the same thing. */
const samples = new Map();
function observedRate(key, value) {
  const now = performance.now();
  const prev = samples.get(key);
  samples.set(key, { value, at: now, rate: prev?.rate ?? null });
  if (prev === undefined || value === null || prev.value === null) return prev?.rate ?? null;
  if (value === prev.value) return prev.rate;
  const rate = (value - prev.value) / ((now - prev.at) / 1000);
  const smoothed = prev.rate === null ? rate : 0.5 * prev.rate + 0.5 * rate;
  samples.set(key, { value, at: now, rate: smoothed });
  return smoothed;
}

function syncProgress(detail) {
  const total = detail.shardCounts.total;
  const done = detail.shardCounts.accepted;
  const shardRowsKnown = detail.shards.map(shardRows).filter((r) => r !== null);
  const rows = typeof detail.rowsRead === 'number' ? detail.rowsRead : shardRowsKnown.length === 0 ? null : shardRowsKnown.reduce((a, b) => a + b, 0);
  const partial = typeof detail.rowsRead !== 'number' && detail.nextShardsCursor !== null;
  const doneRows = detail.shards.filter((s) => s.acceptedAttempt !== null).map(shardRows).filter((r) => r !== null);
  const perShard = doneRows.length === 0 ? null : doneRows.reduce((a, b) => a + b, 0) / doneRows.length;
  const expectedRows = perShard === null ? null : perShard * total;
  const running = !TERMINAL.has(detail.phase);
  const rate = running ? observedRate(`sync:${detail.id}`, rows) : null;
  const since = started(detail.timings);
  const elapsedMs = since ? (ended(detail.timings) ? Date.parse(ended(detail.timings)) : Date.now()) - Date.parse(since) : null;
  let etaMs = null;
  if (running && detail.phase === 'PREPARING') {
    if (rate && expectedRows !== null && rows !== null) etaMs = (Math.max(0, expectedRows - rows) / rate) * 1000;
    else if (done > 0 && elapsedMs !== null) etaMs = (elapsedMs / done) * (total - done);
  }
  const fraction = total === 0 ? 1 : expectedRows !== null && rows !== null && running ? Math.min(rows / expectedRows, 1) : done / total;
  const averageRate = !running && rows !== null && elapsedMs ? rows / (elapsedMs / 1000) : null;
  return { total, done, rows, partial, perShard, rate: rate ?? averageRate, etaMs, fraction, elapsedMs };
}

// ---------------------------------------------------------------------------------------------
// Views
// ---------------------------------------------------------------------------------------------

/** Details of syncs that ended never change: fetched once. */
const finishedDetails = new Map();

async function syncDetail(summary) {
  const cached = finishedDetails.get(summary.id);
  if (cached) return cached;
  const detail = await api(`/v1/syncs/${seg(summary.id)}`);
  if (TERMINAL.has(detail.phase)) finishedDetails.set(detail.id, detail);
  return detail;
}

/** How many syncs of the list get their rows shown (one detail request each while they run). */
const DETAILED_SYNCS = 50;

/** Syncs per page of the list: the newest page refreshes every second, "Load older" adds the next. */
const SYNCS_PAGE = 200;
/** Pages the live part may span once older pages are loaded (syncs started since then push it down). */
const LIVE_PAGES = 5;

const RESTARTED_CURSOR = 'The list could not go on from where it was (the server no longer accepts its place); it starts again from the newest syncs.';
const RESTARTED_BUSY = `More than ${fmtInt(SYNCS_PAGE * (LIVE_PAGES - 1))} syncs started since the older ones were loaded; the list starts again from the newest syncs.`;

const cursorInvalid = (error) => error instanceof HttpProblem && error.status === 400 && error.code === 'SYNC_CURSOR_INVALID';
/** What failed, by the problem's code or status only: never a value of the request or a row. */
const failure = (error) => (error instanceof HttpProblem ? error.code ?? `HTTP ${error.status}` : 'the coordinator could not be reached');

/**
 * The syncs list beyond its newest page, kept while the page lives (a refresh every second, or a
 * visit to another view, keeps the user's place). The list is the live part (every sync before the
 * first older one, read again from the newest on each refresh) followed by the older pages as they
 * were loaded. A cursor is a place in the list, so syncs started since push the live part down
 * without moving the older pages: nothing is skipped or shown twice.
 */
const listing = {
  /** Bumped whenever the older pages change: a load or a refresh begun before does not write over them. */
  epoch: 0,
  /** The summaries of the older pages, newest first. */
  older: [],
  /** The next older page's cursor; undefined: none loaded yet (the live page's, `liveNext`, leads on); null: the end. */
  next: undefined,
  /** The cursor after the newest page as last read (null: that page is the whole list). */
  liveNext: null,
  /** The load under way (its own object), or null. */
  loading: null,
  notice: '',
  /** One control for every render: a refresh moves it rather than replacing it under the pointer. */
  control: null,
};

function restartListing(notice) {
  listing.epoch++;
  listing.older = [];
  listing.next = undefined;
  listing.loading = null;
  listing.notice = notice;
}

/**
 * The live part: without older pages the newest page; with them every sync before the first older
 * one, page by page from the newest. Undefined when that takes more than LIVE_PAGES pages.
 */
async function liveSyncs() {
  const olderIds = new Set(listing.older.map((s) => s.id));
  const live = [];
  let cursor = null;
  for (let pages = 0; pages < LIVE_PAGES; pages++) {
    const page = await api(`/v1/syncs?limit=${SYNCS_PAGE}${cursor === null ? '' : `&cursor=${seg(cursor)}`}`);
    const cut = page.syncs.findIndex((s) => olderIds.has(s.id));
    live.push(...(cut === -1 ? page.syncs : page.syncs.slice(0, cut)));
    if (listing.next === undefined || cut !== -1 || page.nextCursor === null) return { live, next: page.nextCursor, reachedOlder: cut !== -1 };
    cursor = page.nextCursor;
  }
  return undefined;
}

async function loadOlder(cursor) {
  if (listing.loading !== null || cursor === null || cursor === undefined) return;
  const mine = {};
  const epoch = listing.epoch;
  listing.loading = mine;
  listing.notice = '';
  renderControl();
  try {
    const page = await api(`/v1/syncs?limit=${SYNCS_PAGE}&cursor=${seg(cursor)}`);
    if (epoch !== listing.epoch) return;
    const shown = new Set(listing.older.map((s) => s.id));
    listing.older.push(...page.syncs.filter((s) => !shown.has(s.id)));
    listing.next = page.nextCursor;
    listing.epoch++;
  } catch (error) {
    if (epoch !== listing.epoch) return;
    if (cursorInvalid(error)) restartListing(RESTARTED_CURSOR);
    else listing.notice = `Could not load older syncs (${failure(error)}); try again.`;
  } finally {
    if (listing.loading === mine) listing.loading = null;
  }
  await refresh();
}

/** The "Load older" button, or the end of the list: one element for every render. */
function renderControl() {
  if (listing.control === null) {
    const button = h('button', { type: 'button', 'data-testid': 'load-older' });
    button.addEventListener('click', () => void loadOlder(listing.next === undefined ? listing.liveNext : listing.next));
    listing.control = { button, end: h('p', { 'data-testid': 'syncs-end', text: 'End of the list: no older syncs.' }), holder: h('div', { class: 'pager' }) };
  }
  const { button, end, holder } = listing.control;
  const more = (listing.next === undefined ? listing.liveNext : listing.next) !== null;
  button.disabled = listing.loading !== null;
  button.textContent = listing.loading !== null ? 'Loading older syncs…' : `Load ${SYNCS_PAGE} older syncs`;
  holder.replaceChildren(more ? button : end);
  return { holder, more };
}

function syncRow(summary, detail) {
  const p = detail ? syncProgress(detail) : undefined;
  return h(
    'tr',
    { 'data-sync': summary.id, 'data-table': tableName(summary.table) },
    h('td', {}, h('a', { href: `#/sync/${seg(summary.id)}` }, h('code', { text: summary.id }))),
    h('td', {}, h('a', { href: `#/table/${seg(summary.table.database)}/${seg(summary.table.table)}`, text: tableName(summary.table) })),
    h('td', {}, phaseCell(summary.phase)),
    h('td', { text: fmtTime(started(summary.timings)) }),
    h('td', { text: fmtTime(ended(summary.timings)) }),
    h('td', {}, p ? bar(p.fraction, summary.phase === 'ABORTED' ? 'failed' : TERMINAL.has(summary.phase) ? 'done' : 'running', `${p.done}/${p.total} shards`) : '', p ? `${p.done}/${p.total} shards` : `${summary.shards} shards`),
    h('td', { class: 'num', text: p ? `${fmtInt(p.rows)}${p.partial ? '+' : ''}` : '—' }),
    h('td', { class: 'num', text: summary.snapshotId ?? '—' }),
    h('td', { class: 'reason', 'data-testid': 'reason', text: reasonText(summary.reason) }),
  );
}

async function syncsView() {
  let walk;
  try {
    walk = await liveSyncs();
  } catch (error) {
    if (!cursorInvalid(error)) throw error;
    restartListing(RESTARTED_CURSOR);
    walk = await liveSyncs();
  }
  if (walk === undefined) {
    restartListing(RESTARTED_BUSY);
    walk = await liveSyncs();
  }
  const { live } = walk;
  // The list's end reached with none of the older syncs met: they are gone (removed or expired).
  if (listing.next !== undefined && !walk.reachedOlder && walk.next === null && listing.older.length > 0) {
    listing.older = [];
    listing.epoch++;
  }
  if (listing.next === undefined) listing.liveNext = walk.next;
  const details = await Promise.all(live.slice(0, DETAILED_SYNCS).map((s) => syncDetail(s).catch(() => undefined)));
  const liveIds = new Set(live.map((s) => s.id));
  const older = listing.older.filter((s) => !liveIds.has(s.id));
  // Older rows show what their summary says (and a finished sync's rows when its detail is known): no request each.
  const rows = [...live.map((s, i) => syncRow(s, details[i])), ...older.map((s) => syncRow(s, finishedDetails.get(s.id)))];
  const { holder: control, more } = renderControl();
  const total = live.length + older.length;
  const count =
    total === 0
      ? 'No sync yet.'
      : !more
        ? `All ${fmtInt(total)} syncs, newest first.`
        : older.length === 0
          ? `The ${fmtInt(total)} newest syncs, newest first; they refresh every second.`
          : `The ${fmtInt(total)} newest syncs, newest first: the ${fmtInt(live.length)} newest refresh every second, the ${fmtInt(older.length)} older are as they were loaded.`;
  return [
    h('p', { 'data-testid': 'syncs-count', text: count }),
    total === 0
      ? ''
      : h(
          'table',
          { 'data-testid': 'syncs' },
          h('thead', {}, h('tr', {}, ['Sync', 'Table', 'State', 'Started', 'Ended', 'Progress', 'Rows', 'Snapshot', 'Reason'].map((t) => h('th', { text: t })))),
          h('tbody', {}, rows),
        ),
    // Beside the button, where the user who clicked it looks.
    listing.notice === '' ? '' : h('p', { class: 'notice', role: 'status', 'data-testid': 'syncs-notice', text: listing.notice }),
    total === 0 ? '' : control,
  ];
}

/** One stage of a sync: `accepted/total jobs · rows · bytes` (the total is unknown before the buckets are planned). */
function stageText(stage, jobs) {
  if (!stage) return '—';
  const total = stage.total === null ? '?' : String(stage.total);
  return `${stage.accepted}/${total} ${jobs} · ${fmtInt(stage.rows)} rows · ${fmtInt(stage.bytes)} bytes`;
}

async function syncView(id) {
  const detail = await api(`/v1/syncs/${seg(id)}`);
  const p = syncProgress(detail);
  const reason = detail.state.reason;
  const running = !TERMINAL.has(detail.phase);
  const facts = [
    ['Sync', h('code', { text: detail.id })],
    ['Table', h('a', { href: `#/table/${seg(detail.plan.table.database)}/${seg(detail.plan.table.table)}`, text: tableName(detail.plan.table) })],
    ['State', phaseCell(detail.phase)],
    ['Started', fmtTime(started(detail.timings))],
    ['Ended', fmtTime(ended(detail.timings))],
    ['Elapsed', fmtDuration(p.elapsedMs)],
    ['Snapshot', detail.snapshotId === null ? '—' : String(detail.snapshotId)],
    ['Progress', h('span', { 'data-testid': 'sync-progress', text: `${p.done}/${p.total} shards · ${fmtInt(p.rows)}${p.partial ? '+' : ''} rows` })],
    ['Rate', h('span', { 'data-testid': 'sync-rate', text: fmtRate(p.rate) })],
    ['ETA', h('span', { 'data-testid': 'sync-eta', text: running ? fmtDuration(p.etaMs) : '—' })],
    ['Reason', h('span', { class: 'reason', 'data-testid': 'reason', text: reasonText(reason) })],
    ['Layout', h('span', { 'data-testid': 'sync-layout', text: detail.layout ?? '—' })],
    ['Shards read', h('span', { 'data-testid': 'stage-shards', text: stageText(detail.stages?.shards, 'shards') })],
    ['Buckets written', h('span', { 'data-testid': 'stage-buckets', text: detail.stages?.buckets ? stageText(detail.stages.buckets, 'buckets') : '— (direct: the shards write the files)' })],
    ['Files added', h('span', { 'data-testid': 'sync-files', text: typeof detail.files === 'number' ? fmtInt(detail.files) : '—' })],
    ['Warnings', h('span', { class: 'reason', 'data-testid': 'sync-warnings', text: (detail.warnings ?? []).join(' · ') })],
  ];
  const shards = detail.shards.map((shard) => {
    const state = shardState(shard, detail.phase);
    const rows = shardRows(shard);
    const rate = state === 'running' ? shardRate(shard) ?? observedRate(`shard:${detail.id}:${shard.id}`, rows) : shardRate(shard);
    const fraction = state === 'done' ? 1 : state === 'running' && rows !== null && p.perShard ? Math.min(rows / p.perShard, 0.99) : state === 'running' ? null : 0;
    const eta = state === 'running' && rate && rows !== null && p.perShard ? ((p.perShard - rows) / rate) * 1000 : null;
    const error = shard.error ?? lastAttempt(shard)?.error;
    return h(
      'tr',
      { 'data-shard': shard.id },
      h('td', {}, h('code', { text: shard.id })),
      h('td', { text: state }),
      h('td', {}, bar(fraction, state === 'failed' ? 'failed' : state === 'done' ? 'done' : 'running', `${state}`)),
      h('td', { class: 'num', 'data-testid': 'shard-rows', text: fmtInt(rows) }),
      h('td', { class: 'num', text: fmtRate(rate) }),
      h('td', { class: 'num', text: state === 'running' ? fmtDuration(eta) : fmtDuration(shard.durationMs) }),
      h('td', { class: 'num', text: shard.attempts.length }),
      h('td', { class: 'reason', text: error ? reasonText(error) : '' }),
      h('td', {}, h('a', { href: `${DASHBOARD}/queue/${seg(SHARD_QUEUE)}/${seg(shardJobId(detail.id, shard.id))}`, 'data-testid': 'job-link', text: 'job' })),
    );
  });
  return [
    h('h2', { text: 'Sync' }),
    h('dl', {}, facts.flatMap(([k, v]) => [h('dt', { text: k }), h('dd', {}, v)])),
    bar(p.fraction, detail.phase === 'ABORTED' ? 'failed' : running ? 'running' : 'done', 'sync'),
    h('h2', { text: detail.nextShardsCursor === null ? `Shards (${p.total})` : `Shards (first ${detail.shards.length} of ${p.total})` }),
    h(
      'table',
      {},
      h('thead', {}, h('tr', {}, ['Shard', 'State', 'Progress', 'Rows', 'Rate', 'ETA / took', 'Attempts', 'Error', 'bull-board'].map((t) => h('th', { text: t })))),
      h('tbody', {}, shards),
    ),
  ];
}

async function tablesView() {
  const { tables, nextCursor } = await api('/v1/tables?limit=1000');
  return [
    h('h2', { text: 'Tables' }),
    h(
      'table',
      {},
      h('thead', {}, h('tr', {}, ['Table', 'Primary keys', 'Partition keys', 'Buckets', 'Latest snapshot'].map((t) => h('th', { text: t })))),
      h(
        'tbody',
        {},
        tables.map((t) =>
          h(
            'tr',
            {},
            h('td', {}, h('a', { href: `#/table/${seg(t.database)}/${seg(t.table)}`, text: tableName(t) })),
            h('td', { text: t.primaryKeys.join(', ') }),
            h('td', { text: t.partitionKeys.join(', ') }),
            h('td', { class: 'num', text: t.bucket }),
            h('td', { class: 'num', text: t.latestSnapshotId ?? '—' }),
          ),
        ),
      ),
    ),
    nextCursor === null ? '' : h('p', { text: 'More tables than shown (first 1,000).' }),
  ];
}

/** Snapshots whose files are counted (each count pages through that snapshot's file listing). */
const COUNTED_SNAPSHOTS = 10;

async function countFiles(database, table, snapshotId) {
  let count = 0;
  let cursor = null;
  do {
    const page = await api(`/v1/tables/${seg(database)}/${seg(table)}/files?snapshot=${snapshotId}&limit=1000${cursor ? `&cursor=${seg(cursor)}` : ''}`);
    count += page.files.length;
    cursor = page.nextCursor;
  } while (cursor !== null);
  return count;
}

async function tableView(database, table) {
  const base = `/v1/tables/${seg(database)}/${seg(table)}`;
  const [info, { snapshots }, firstSyncs] = await Promise.all([
    api(base),
    api(`${base}/snapshots?limit=50`),
    api(`/v1/syncs?database=${seg(database)}&table=${seg(table)}&limit=${TABLE_SYNCS_PAGE}`),
  ]);
  const fileCounts = await Promise.all(snapshots.slice(0, COUNTED_SNAPSHOTS).map((s) => countFiles(database, table, s.id).catch(() => null)));
  return [
    h('h2', { text: tableName(info) }),
    h(
      'dl',
      {},
      [
        ['Primary keys', info.primaryKeys.join(', ') || '—'],
        ['Partition keys', info.partitionKeys.join(', ') || '—'],
        ['Buckets', info.options.bucket ?? '—'],
        ['Latest snapshot', info.latestSnapshotId ?? '—'],
        ['Rows', fmtInt(info.rowCount)],
        ['Files', fmtInt(info.fileCount)],
      ].flatMap(([k, v]) => [h('dt', { text: k }), h('dd', { 'data-testid': `table-${k.toLowerCase().replace(/ /g, '-')}`, text: v })]),
    ),
    h('h2', { text: 'Snapshots' }),
    h(
      'table',
      {},
      h('thead', {}, h('tr', {}, ['Id', 'Kind', 'Time', 'Commit user', 'Total rows', 'Rows added', 'Files'].map((t) => h('th', { text: t })))),
      h(
        'tbody',
        {},
        snapshots.map((s, i) =>
          h(
            'tr',
            { 'data-snapshot': s.id },
            h('td', { class: 'num', text: s.id }),
            h('td', { text: s.commitKind }),
            h('td', { text: fmtTime(s.time) }),
            h('td', {}, h('code', { text: s.commitUser })),
            h('td', { class: 'num', text: fmtInt(s.totalRecordCount) }),
            h('td', { class: 'num', text: fmtInt(s.deltaRecordCount) }),
            h('td', { class: 'num', 'data-testid': 'snapshot-files', text: i < COUNTED_SNAPSHOTS ? fmtInt(fileCounts[i]) : '' }),
          ),
        ),
      ),
    ),
    h('h2', { text: 'Syncs' }),
    ...tableSyncs(database, table, firstSyncs),
  ];
}

/** Syncs per page of a table's list (the view does not refresh: older pages are added below). */
const TABLE_SYNCS_PAGE = 20;

/** A table's syncs, newest first, with a button that adds the next page of that table's syncs. */
function tableSyncs(database, table, first) {
  const path = `/v1/syncs?database=${seg(database)}&table=${seg(table)}&limit=${TABLE_SYNCS_PAGE}`;
  const count = h('p', { 'data-testid': 'syncs-count' });
  const notice = h('p', { class: 'notice', role: 'status', 'data-testid': 'syncs-notice' });
  const list = h('ul', { 'data-testid': 'table-syncs' });
  const button = h('button', { type: 'button', 'data-testid': 'load-older', text: `Load ${TABLE_SYNCS_PAGE} older syncs` });
  const holder = h('div', { class: 'pager' });
  const end = h('p', { 'data-testid': 'syncs-end', text: 'End of the list: no older syncs of this table.' });
  let next = null;
  let shown = new Set();
  const show = (page, restart) => {
    if (restart) {
      list.replaceChildren();
      shown = new Set();
    }
    for (const s of page.syncs) {
      if (shown.has(s.id)) continue;
      shown.add(s.id);
      list.append(h('li', { 'data-sync': s.id }, h('a', { href: `#/sync/${seg(s.id)}` }, h('code', { text: s.id })), ' ', phaseCell(s.phase), ' ', fmtTime(started(s.timings))));
    }
    next = page.nextCursor;
    count.textContent = shown.size === 0 ? 'No sync of this table yet.' : next === null ? `All ${fmtInt(shown.size)} syncs of this table, newest first.` : `The ${fmtInt(shown.size)} newest syncs of this table, newest first.`;
    holder.replaceChildren(next === null ? (shown.size === 0 ? '' : end) : button);
  };
  button.addEventListener('click', async () => {
    if (button.disabled || next === null) return;
    button.disabled = true;
    button.textContent = 'Loading older syncs…';
    notice.textContent = '';
    try {
      show(await api(`${path}&cursor=${seg(next)}`), false);
    } catch (error) {
      if (!cursorInvalid(error)) notice.textContent = `Could not load older syncs (${failure(error)}); try again.`;
      else {
        notice.textContent = RESTARTED_CURSOR;
        try {
          show(await api(path), true);
        } catch (again) {
          notice.textContent = `Could not load this table's syncs (${failure(again)}); reload the page.`;
        }
      }
    } finally {
      button.disabled = false;
      button.textContent = `Load ${TABLE_SYNCS_PAGE} older syncs`;
    }
  });
  show(first, true);
  return [count, list, notice, holder];
}

// ---------------------------------------------------------------------------------------------
// Routing and polling
// ---------------------------------------------------------------------------------------------

function route() {
  const parts = location.hash.replace(/^#\/?/, '').split('/').map((p) => decodeURIComponent(p));
  if (parts[0] === 'sync' && parts[1]) return { render: () => syncView(parts[1]), poll: true };
  if (parts[0] === 'tables') return { render: tablesView, poll: false };
  if (parts[0] === 'table' && parts[1] && parts[2]) return { render: () => tableView(parts[1], parts[2]), poll: false };
  return { render: syncsView, poll: true };
}

let generation = 0;
let timer;

async function refresh() {
  const mine = ++generation;
  clearTimeout(timer);
  const { render, poll } = route();
  const status = document.getElementById('status');
  const main = document.getElementById('main');
  try {
    const nodes = await render();
    if (mine !== generation) return;
    main.replaceChildren(...nodes);
    status.className = '';
    document.getElementById('signout').hidden = false;
    status.textContent = `Updated ${new Date().toISOString().slice(11, 19)} UTC`;
  } catch (error) {
    if (mine !== generation) return;
    status.className = 'error';
    if (error instanceof HttpProblem && error.status === 401) {
      status.textContent = 'Not signed in.';
      document.getElementById('signout').hidden = true;
      main.replaceChildren(h('p', {}, h('a', { href: LOGIN, text: 'Sign in' }), ' with a token to see the syncs.'));
      return;
    }
    status.textContent = String(error.message ?? error);
  }
  if (poll && mine === generation) timer = setTimeout(refresh, POLL_MS);
}

window.addEventListener('hashchange', () => void refresh());
void refresh();
