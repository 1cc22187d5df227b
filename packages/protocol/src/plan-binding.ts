/**
 * What binds a job to the plan it reads in Redis: one home for the plan fingerprints of syncs and
 * compactions, and for the seals of a sync's plan entries.
 *
 * Every job is a pointer (id, part, vote token); what it does comes from the plan persisted in
 * Redis. A worker must therefore never trust a fingerprint it finds stored beside the plan: it
 * recomputes the fingerprint from the plan it actually reads and checks the job's token against
 * THAT, so a plan rewritten in Redis (another source, another shard spec, another warehouse) fails
 * the token, which only a holder of the cluster secret can make.
 *
 *   fingerprint   = SHA-256 over the canonical JSON of the plan's basics, then each entry digest
 *                   in order (fingerprintOver)
 *   entry digest  = SHA-256 of an entry's canonical JSON (canonicalDigest)
 *
 * A compaction's head lists every entry digest (its jobs are few); a worker recomputes the
 * fingerprint over them and compares its entry's digest with its place in the list.
 *
 * A sync may have 100,000 shards, and each job reads its shard's entry in one constant-size HMGET:
 * its head carries only `shards: {count, digest}` (shardsDigest over every entry's digest, which a
 * worker cannot recompute but which the fingerprint covers), and each entry carries a seal,
 * HMAC(cluster secret, sync, field, fingerprint, entry digest) (vote-token.ts planSealMac). A worker
 * recomputes the fingerprint from the head (SYNC_PLAN_ALTERED if it is not the stored one), checks
 * the job's token under it, then the entry's seal (SYNC_PLAN_ALTERED). The coordinator seals the
 * bucket plan and the folded positions it derives from verified blobs the same way, and checks the
 * seals where it reads them back. The coordinator's commit recomputes the fingerprint from the
 * record it reads (once per record read: the commit after the prefetches takes the prefetch's read
 * while the stored version is still its own), so a record changed after planning fails every
 * blob's token.
 *
 * Pure: hashing only.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';
import { protocolError } from './errors.ts';
import { SyncPlanBasics, SyncPlanHead, type PlannedShardEntry } from './sync-schemas.ts';
import { decodeVoteToken, encodeVoteToken, planSealMac, tokensEqual } from './vote-token.ts';

/** SHA-256 (hex) of a value's canonical JSON: the same for the same value, whatever its key order. */
export function canonicalDigest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

/** SHA-256 (hex) over the canonical JSON of `basics`, then `'\n'` and each digest, in order (streamed: 100,000 digests are never one string). */
export function fingerprintOver(basics: unknown, digests: Iterable<string>): string {
  const hash = createHash('sha256').update(canonicalJson(basics));
  for (const digest of digests) hash.update('\n').update(digest);
  return hash.digest('hex');
}

/** What a sync's fingerprint covers, as the coordinator's record holds it (sync/state.ts SyncPlan). */
export interface PlanFingerprintInput {
  readonly table: { readonly database: string; readonly table: string };
  readonly source: Readonly<Record<string, unknown>>;
  readonly shards: readonly { readonly id: string; readonly spec: Readonly<Record<string, unknown>> }[];
  readonly baseSnapshotId: number | null;
  readonly schemaId: number;
  readonly schemaSha256?: string | undefined;
  readonly commitUser: string;
  readonly commitIdentifier: string;
  /** How the commit writes (an `overwrite` replaces the partitions it touches). */
  readonly mode: 'append' | 'upsert' | 'overwrite';
  readonly options: {
    readonly snapshotProperties: Readonly<Record<string, string>>;
    readonly layout?: 'bucketed' | 'direct' | undefined;
    readonly badRows?: 'fail' | 'reject' | undefined;
    readonly deletes?: SyncPlanBasics['deletes'];
  };
}

/** The entry a shard has in the workers' copy of the plan, without its seal: its slot (its index in the plan) and spec. */
function shardEntryBody(slot: number, spec: Readonly<Record<string, unknown>>): { slot: number; spec: Readonly<Record<string, unknown>> } {
  return { slot, spec };
}

/** The digest of every shard's entry (id, slot, spec), in plan order, folded into one. */
function shardsDigest(shards: PlanFingerprintInput['shards']): string {
  return fingerprintOver({ shards: shards.length }, (function* () {
    for (let i = 0; i < shards.length; i++) yield canonicalDigest({ id: shards[i]!.id, ...shardEntryBody(i, shards[i]!.spec) });
  })());
}

/** The basics of a sync's plan (what its head holds, less the fingerprint), from the record's plan and the warehouse. */
export function syncPlanBasics(plan: PlanFingerprintInput, warehouse: string): SyncPlanBasics {
  const { options } = plan;
  return {
    warehouse,
    table: plan.table,
    schemaId: plan.schemaId,
    baseSnapshotId: plan.baseSnapshotId,
    commitUser: plan.commitUser,
    commitIdentifier: plan.commitIdentifier,
    ...(plan.schemaSha256 === undefined ? {} : { schemaSha256: plan.schemaSha256 }),
    mode: plan.mode,
    snapshotProperties: { ...options.snapshotProperties },
    source: { ...plan.source },
    badRows: options.badRows ?? 'fail',
    ...(options.layout === undefined ? {} : { layout: options.layout }),
    ...(options.deletes === undefined ? {} : { deletes: options.deletes }),
    shards: { count: plan.shards.length, digest: shardsDigest(plan.shards) },
  };
}

/** The fingerprint of a sync's plan from its basics (as a worker recomputes it from the head it reads). */
export function syncPlanFingerprint(basics: SyncPlanBasics): string {
  return fingerprintOver(SyncPlanBasics.parse(basics), []);
}

/** The fingerprint of a sync's plan from the record's plan (as the coordinator computes it): what its vote tokens bind. */
export function planFingerprint(plan: PlanFingerprintInput, warehouse: string): string {
  return syncPlanFingerprint(syncPlanBasics(plan, warehouse));
}

/** The seal of one field of a sync's `:plan` hash: its value's digest bound to the sync and the fingerprint. */
export function planSeal(secret: Uint8Array, syncId: string, field: string, fingerprint: string, value: unknown): string {
  return encodeVoteToken(planSealMac(secret, syncId, field, fingerprint, canonicalDigest(value)));
}

/** A shard's entry as the coordinator stores it: slot, spec and seal. */
export function sealedShardEntry(secret: Uint8Array, syncId: string, field: string, fingerprint: string, slot: number, spec: Readonly<Record<string, unknown>>): PlannedShardEntry {
  const body = shardEntryBody(slot, spec);
  return { ...body, spec: { ...spec }, seal: planSeal(secret, syncId, field, fingerprint, body) };
}

function altered(syncId: string, what: string, field: string, context: Readonly<Record<string, string | number>>) {
  return protocolError('SYNC_PLAN_ALTERED', `${what} of sync ${syncId} does not match the plan its vote tokens bind (changed in Redis after planning, or planned by an older coordinator)`, {
    syncId,
    field,
    ...context,
  });
}

/**
 * The head of a sync's plan as read from Redis, with the fingerprint recomputed from it. The
 * stored fingerprint is only compared: SYNC_PLAN_ALTERED when the head does not parse or its
 * basics do not hash to it. The caller checks the job's token against the returned fingerprint.
 */
export function verifiedSyncPlanHead(syncId: string, headJson: string, context: Readonly<Record<string, string | number>> = {}): { head: SyncPlanHead; fingerprint: string } {
  let head: SyncPlanHead;
  try {
    head = SyncPlanHead.parse(JSON.parse(headJson));
  } catch {
    throw altered(syncId, 'the plan head', 'head', context);
  }
  const { fingerprint: stored, ...basics } = head;
  const fingerprint = syncPlanFingerprint(basics);
  if (fingerprint !== stored) throw altered(syncId, 'the plan head', 'head', context);
  return { head, fingerprint };
}

/**
 * Checks one sealed field of a sync's `:plan` hash (`value` without its seal) under the recomputed
 * fingerprint: SYNC_PLAN_ALTERED when the seal is not the value's.
 */
export function checkPlanSeal(
  secret: Uint8Array,
  syncId: string,
  field: string,
  fingerprint: string,
  value: unknown,
  seal: string,
  context: Readonly<Record<string, string | number>> = {},
): void {
  const expected = planSealMac(secret, syncId, field, fingerprint, canonicalDigest(value));
  if (!tokensEqual(decodeVoteToken(seal), expected)) throw altered(syncId, `the plan's ${field}`, field, context);
}
