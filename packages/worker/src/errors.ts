/**
 * The worker's error codes. A shard job that throws a non-retryable one fails for good
 * (BullMQ UnrecoverableError) and votes NO for its sync; a retryable one is retried with backoff.
 */
import { defineErrorCatalogue } from '@tributary/protocol';

export const workerErrors = defineErrorCatalogue({
  SYNC_NOT_ACCEPTING: {
    retryable: false,
    summary: 'The sync left the phase this job runs in (PREPARING for a shard, MERGING for a bucket: it aborted or moved on) while it ran; the attempt stopped.',
  },
  WORKER_SHUTTING_DOWN: {
    retryable: true,
    summary: 'The worker was stopped (SIGTERM) and its shutdown grace ran out while this attempt ran: the attempt stopped, deleted its data files and put its job back in the queue for another worker.',
  },
  SHARD_JOB_INVALID: { retryable: false, summary: 'The write-shard job data does not match its schema.' },
  SHARD_NOT_PLANNED: {
    retryable: false,
    summary: 'A write-shard job names a sync without a persisted plan, or a shard its plan does not have; the job is refused before any work.',
  },
  SHARD_TOKEN_INVALID: {
    retryable: false,
    summary: 'A write-shard job does not carry its shard\u2019s vote token (not enqueued by the coordinator, or the cluster secrets differ); the job is refused before any work.',
  },
  BUCKET_JOB_INVALID: { retryable: false, summary: 'The merge-bucket job data does not match its schema.' },
  BUCKET_NOT_PLANNED: {
    retryable: false,
    summary: 'A merge-bucket job names a sync without a persisted plan, or a bucket its bucket plan does not have; the job is refused before any work.',
  },
  BUCKET_TOKEN_INVALID: {
    retryable: false,
    summary: 'A merge-bucket job does not carry its bucket\u2019s vote token (not enqueued by the coordinator, or the cluster secrets differ); the job is refused before any work.',
  },
  COMPACTION_JOB_INVALID: { retryable: false, summary: 'The compact-bucket job data does not match its schema.' },
  COMPACTION_NOT_PLANNED: {
    retryable: false,
    summary: 'A compact-bucket job names a compaction without a persisted plan, or a job its plan does not have; the job is refused before any work.',
  },
  COMPACTION_TOKEN_INVALID: {
    retryable: false,
    summary: 'A compact-bucket job does not carry its vote token (not enqueued by the coordinator, or the cluster secrets differ); the job is refused before any work.',
  },
  COMPACTION_INPUT_GONE: {
    retryable: false,
    summary: "The metadata of a compaction job's input files, staged by the coordinator when it planned, is gone (the compaction ended and its staging was deleted); the job fails.",
  },
  COMPACTION_PLAN_ALTERED: {
    retryable: false,
    summary: "A compact-bucket job's plan head, plan entry or staged inputs do not match the plan its vote token binds (altered after planning); the job is refused before it rewrites anything, and the compaction fails.",
  },
});

export type WorkerErrorCode = keyof typeof workerErrors;
