/**
 * What the coordinator and the workers share about a compaction (`POST /v1/tables/…/compactions`):
 * its Redis keys, its persisted plan, the job payload, the vote token, where blobs are staged and
 * how the rewritten files are named. A compaction has the ledger of a sync's bucket stage (attempts
 * numbered, the first finished attempt per job accepted with its vote, only while the compaction
 * is RUNNING), under keys of its own.
 *
 * What binds a job to the files it rewrites, from the job's token down:
 *
 *   vote token = HMAC(cluster secret, compaction, job, fingerprint)
 *   fingerprint = SHA-256 over the head's basics and every entry's digest (compactionPlanFingerprint)
 *   entry digest = SHA-256 of the entry's canonical JSON, which carries the SHA-256 of the job's inputs object
 *   inputs object = the input files' metadata as the base snapshot's manifests hold it (a manifest
 *                   file of ADD entries, staged by the coordinator at stagedCompactionInputsKey)
 *
 * (plan-binding.ts: the one home of plan fingerprints). A worker recomputes each link before it reads a row, so a plan entry, head or inputs object altered
 * after planning cannot make a job rewrite other files: the job is refused (COMPACTION_PLAN_ALTERED).
 */
import { createHmac } from 'node:crypto';
import { z } from 'zod';
import { canonicalDigest, fingerprintOver } from './plan-binding.ts';
import { VOTE_TOKEN_TEXT } from './vote-token.ts';
import { SyncTableRef } from './sync-schemas.ts';

export const COMPACTION_QUEUE = 'compact-bucket';

/** `compact-<uuid>`: never a sync id's shape would collide with it in file names (`data-compact-…`). */
export const CompactionId = z.string().regex(/^compact-[A-Za-z0-9_-]{1,72}$/);
/** One job per (partition, bucket): `job-<n>` in plan order. */
export const CompactionJobId = z.string().regex(/^job-[0-9]{1,9}$/);

export const COMPACTION_PHASES = ['RUNNING', 'COMMITTING', 'COMMITTED', 'FAILED', 'CONFLICT'] as const;
export const CompactionPhase = z.enum(COMPACTION_PHASES);
export type CompactionPhase = z.infer<typeof CompactionPhase>;

export function compactionRedisKeys(prefix: string, compactionId: string) {
  const record = `${prefix}:compaction:${compactionId}`;
  return {
    record,
    plan: `${record}:plan`,
    accepted: `${record}:accepted`,
    attempts: `${record}:attempts`,
    attemptSeq: `${record}:attempt-seq`,
    votes: `${record}:votes`,
  } as const;
}

/**
 * The compactions of the deployment, newest last (a sorted set by start time). Ids older than the
 * record retention are trimmed from it as new compactions start.
 */
export function compactionIndexKey(prefix: string): string {
  return `${prefix}:compactions`;
}

/** The compactions not yet ended (RUNNING or COMMITTING): a set, so finding a table's live compactions reads only these. */
export function compactionLiveKey(prefix: string): string {
  return `${prefix}:compactions:live`;
}

export function compactionJobId(index: number): string {
  return `job-${index}`;
}

/** What the fingerprint covers besides the entries: the compaction's table and base. */
export const CompactionPlanBasics = z.object({
  compactionId: CompactionId,
  warehouse: z.string().min(1),
  table: SyncTableRef,
  schemaId: z.number().int().nonnegative(),
  /** The snapshot planned against: the inputs are live files of it. */
  baseSnapshotId: z.number().int().positive(),
  full: z.boolean(),
  jobs: z.number().int().nonnegative(),
});
export type CompactionPlanBasics = z.infer<typeof CompactionPlanBasics>;

const SHA256_HEX = z.string().regex(/^[0-9a-f]{64}$/);

/** The `head` field of the `:plan` hash: the compaction's table and base, and what binds its entries. */
export const CompactionPlanHead = CompactionPlanBasics.extend({
  /** compactionEntryDigest of each job's entry, in job order. */
  entryDigests: z.array(SHA256_HEX),
  /** compactionPlanFingerprint of the basics and the entry digests (the vote tokens bind the jobs to it). */
  fingerprint: SHA256_HEX,
});
export type CompactionPlanHead = z.infer<typeof CompactionPlanHead>;

/** A `job:<id>` field of the `:plan` hash: one (partition, bucket) and what to rewrite. */
export const PlannedCompactionEntry = z.object({
  /** Base64 of the arity-prefixed partition row. */
  partition: z.string(),
  partitionPath: z.string(),
  bucket: z.number().int().nonnegative(),
  totalBuckets: z.number().int(),
  outputLevel: z.number().int().nonnegative(),
  dropDelete: z.boolean(),
  /** How many input files; their metadata, in the order the plan picked them, is the job's inputs object. */
  files: z.number().int().positive(),
  /** SHA-256 of the inputs object (stagedCompactionInputsKey). */
  inputsSha256: SHA256_HEX,
  rows: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
});
export type PlannedCompactionEntry = z.infer<typeof PlannedCompactionEntry>;

/** SHA-256 (hex) of an entry's canonical JSON: what the head lists and the fingerprint covers. */
export function compactionEntryDigest(entry: PlannedCompactionEntry): string {
  return canonicalDigest(entry);
}

/** The plan's fingerprint: SHA-256 over the canonical JSON of the basics and each entry's digest, in job order. */
export function compactionPlanFingerprint(basics: CompactionPlanBasics, entryDigests: readonly string[]): string {
  return fingerprintOver(CompactionPlanBasics.parse(basics), entryDigests);
}

export function planJobField(jobId: string): string {
  return `job:${jobId}`;
}

/** The data of one `compact-bucket` job: a pointer (compaction, job) and the job's vote token. */
export const CompactionJob = z.object({
  compactionId: CompactionId,
  jobId: CompactionJobId,
  token: z.string().regex(VOTE_TOKEN_TEXT),
});
export type CompactionJob = z.infer<typeof CompactionJob>;

/** What a compaction job's accepted attempt voted: its blob's facts. */
export const CompactionVote = z.object({
  attemptId: z.string().min(1),
  checksum: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  rows: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  files: z.number().int().nonnegative(),
});
export type CompactionVote = z.infer<typeof CompactionVote>;

/** A job's token: the HMAC of the sync tokens under its own label, so no sync token passes for it. */
export function compactionVoteToken(secret: Uint8Array, compactionId: string, jobId: string, fingerprint: string): Uint8Array {
  return new Uint8Array(createHmac('sha256', secret).update(`${LABEL}\0${compactionId}\0${jobId}\0${fingerprint}`).digest());
}
const LABEL = 'tributary-compaction-token-v1';

/** Everything a compaction stages outside its table. */
export function compactionStagingPrefix(compactionId: string): string {
  return `.tributary/compactions/${compactionId}/`;
}

export function stagedCompactionBlobKey(compactionId: string, jobId: string, attemptId: string): string {
  return `${compactionStagingPrefix(compactionId)}${jobId}/${attemptId}.blob`;
}

/** The metadata of a job's input files, staged by the coordinator when it plans (a manifest file of ADD entries). */
export function stagedCompactionInputsKey(compactionId: string, jobId: string): string {
  return `${compactionStagingPrefix(compactionId)}${jobId}/inputs.manifest`;
}

/** The writer id of one attempt: in every file it writes (`data-<compactionId>-<jobId>-a<n>-…`). */
export function compactionWriterId(compactionId: string, jobId: string, attempt: number): string {
  return `${compactionId}-${jobId}-a${attempt}`;
}
