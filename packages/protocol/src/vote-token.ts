/**
 * Vote tokens: only the coordinator's planned shard jobs can vote.
 *
 * The coordinator and the workers share a cluster secret (never in Redis, a job payload, a blob or
 * a log line). For each planned shard the coordinator derives
 *
 *   token = HMAC-SHA256(secret, "tributary-vote-token-v1" 0 syncId 0 shardId 0 planFingerprint)
 *
 * and puts it in the shard's job. The worker recomputes the plan's fingerprint from the plan head it
 * reads in Redis, and the token from that (plan-binding.ts: the fingerprint, what it covers, and the
 * seals that bind each shard's entry to it), and refuses a job that does not carry it (a job added
 * by hand, or for a shard the plan does not have) or a plan changed after planning; it writes the
 * token into its blob's header, and the coordinator refuses a blob whose token is not its shard's
 * under the fingerprint of the record it reads, so a record changed after planning (say to
 * `overwrite`) fails every blob.
 *
 * Pure: hashing only; reading the secret's file is the caller's (`readFile` is handed in).
 */
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { protocolError } from './errors.ts';

/** HMAC-SHA256 output. */
export const VOTE_TOKEN_BYTES = 32;
/** A shorter secret is refused: it could be guessed offline from one token seen in a job. */
export const MIN_CLUSTER_SECRET_BYTES = 32;

const LABEL = 'tributary-vote-token-v1';

export function shardVoteToken(secret: Uint8Array, syncId: string, shardId: string, fingerprint: string): Uint8Array {
  const mac = createHmac('sha256', keyOf(secret)).update(`${LABEL}\0${syncId}\0${shardId}\0${fingerprint}`).digest();
  return new Uint8Array(mac);
}

/**
 * A bucket job's token (bucketed layout): the same HMAC under another label, so a shard's token can
 * never pass for a bucket's. The bucket plan is derived from the accepted shards, persisted in Redis
 * (trusted) before any bucket job exists; the token binds the job to the sync, the bucket and the plan.
 */
export function bucketVoteToken(secret: Uint8Array, syncId: string, bucketId: string, fingerprint: string): Uint8Array {
  const mac = createHmac('sha256', keyOf(secret)).update(`${BUCKET_LABEL}\0${syncId}\0${bucketId}\0${fingerprint}`).digest();
  return new Uint8Array(mac);
}

const BUCKET_LABEL = 'tributary-bucket-token-v1';

/**
 * A plan seal: the HMAC that binds one field of a sync's `:plan` hash (a shard's or a bucket's
 * entry, the folded positions) to the sync and the plan's fingerprint, over the field's digest
 * (plan-binding.ts). Only a holder of the cluster secret can make one, so an entry rewritten in
 * Redis cannot be resealed.
 */
export function planSealMac(secret: Uint8Array, syncId: string, field: string, fingerprint: string, digest: string): Uint8Array {
  const mac = createHmac('sha256', keyOf(secret)).update(`${SEAL_LABEL}\0${syncId}\0${field}\0${fingerprint}\0${digest}`).digest();
  return new Uint8Array(mac);
}

const SEAL_LABEL = 'tributary-plan-seal-v1';

/**
 * The secret as a KeyObject, made once per secret: createHmac with raw key bytes imports the key on
 * every call, which made 10,000 tokens cost about a second instead of about 60 ms.
 */
const keys = new WeakMap<Uint8Array, KeyObject>();
function keyOf(secret: Uint8Array): KeyObject {
  let key = keys.get(secret);
  if (key === undefined) {
    key = createSecretKey(secret);
    keys.set(secret, key);
  }
  return key;
}

/** Constant-time comparison (a byte-by-byte early exit would leak how much of a guess was right). */
export function tokensEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token as it travels in a job payload: unpadded base64url, 43 characters. */
export function encodeVoteToken(token: Uint8Array): string {
  return Buffer.from(token).toString('base64url');
}

export const VOTE_TOKEN_TEXT = /^[A-Za-z0-9_-]{43}$/;

export function decodeVoteToken(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'base64url'));
}

/** Where a process finds the cluster secret. */
export interface ClusterSecretEnv {
  readonly TRIBUTARY_CLUSTER_SECRET?: string | undefined;
  readonly TRIBUTARY_CLUSTER_SECRET_FILE?: string | undefined;
}

/**
 * The cluster secret from `TRIBUTARY_CLUSTER_SECRET` (the value itself) or
 * `TRIBUTARY_CLUSTER_SECRET_FILE` (a file holding it; one trailing newline is dropped), as UTF-8
 * bytes. Exactly one must be set, and the secret must have at least 32 bytes: a coordinator
 * without it cannot sign jobs, a worker without it cannot check them. CLUSTER_SECRET_INVALID
 * otherwise; no message ever contains the secret.
 */
export function clusterSecretFromEnv(env: ClusterSecretEnv, readFile: (path: string) => string): Uint8Array {
  const value = env.TRIBUTARY_CLUSTER_SECRET;
  const file = env.TRIBUTARY_CLUSTER_SECRET_FILE;
  if (value !== undefined && value !== '' && file !== undefined && file !== '') {
    throw protocolError('CLUSTER_SECRET_INVALID', 'set TRIBUTARY_CLUSTER_SECRET or TRIBUTARY_CLUSTER_SECRET_FILE, not both');
  }
  let text: string;
  if (file !== undefined && file !== '') {
    try {
      text = readFile(file).replace(/\r?\n$/, '');
    } catch (cause) {
      throw protocolError('CLUSTER_SECRET_INVALID', `cannot read TRIBUTARY_CLUSTER_SECRET_FILE ${file}`, { file }, { cause });
    }
  } else if (value !== undefined && value !== '') {
    text = value;
  } else {
    throw protocolError(
      'CLUSTER_SECRET_INVALID',
      'no cluster secret: set TRIBUTARY_CLUSTER_SECRET or TRIBUTARY_CLUSTER_SECRET_FILE (the same on the coordinator and every worker)',
    );
  }
  return checkClusterSecret(new TextEncoder().encode(text));
}

export function checkClusterSecret(secret: Uint8Array): Uint8Array {
  if (secret.length < MIN_CLUSTER_SECRET_BYTES) {
    throw protocolError('CLUSTER_SECRET_INVALID', `the cluster secret has ${secret.length} bytes, at least ${MIN_CLUSTER_SECRET_BYTES} are needed`, {
      bytes: secret.length,
    });
  }
  return secret;
}
