/**
 * What the BullMQ dashboard (bull-board, at /admin/queues) shows of a job. Its job listing and a
 * job's detail show each job's data, return value and progress as stored in Redis, to every role
 * that may read the dashboard. Some of it is secret: each shard, bucket and compaction job carries
 * its vote token (`data.token`, what a worker presents to vote for the job). Nobody reading the
 * dashboard needs one, so no role sees any: every field whose name says it holds a secret (a
 * token, a secret, a password, a credential, a key) is shown as `[redacted]`, at any depth.
 */
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { errorFrom } from '@tributary/protocol';
import { coordinatorErrors } from '../errors.ts';
import { DASHBOARD_PREFIX } from './auth.ts';
import { sendError } from './problem.ts';

/** Field names that hold a secret (vote tokens today; credentials should one ever reach a job). */
const SECRET_FIELD = /token|secret|password|passwd|credential|authorization|cookie|api[-_]?key|access[-_]?key|private[-_]?key/i;

export const REDACTED = '[redacted]';

/** A copy of `value` with the value of every secret-named field replaced by REDACTED. */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > 32) return REDACTED; // deeper than any job of ours: shown as nothing rather than unchecked
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_FIELD.test(k) ? REDACTED : redactSecrets(v, depth + 1)]));
}

/** The dashboard's adapter of a queue: job data, return values and progress without secrets (the listing and a job's detail both format through it). */
export function dashboardAdapter(queue: Queue): BullMQAdapter {
  const adapter = new BullMQAdapter(queue);
  adapter.setFormatter('data', (data) => redactSecrets(data));
  adapter.setFormatter('returnValue', (value) => redactSecrets(value));
  adapter.setFormatter('progress', (progress) => redactSecrets(progress));
  return adapter;
}

/** bull-board's "edit job data" action. */
const JOB_DATA_EDIT = `${DASHBOARD_PREFIX}/api/queues/:queueName/:jobId/update-data`;

/**
 * No role edits a job's data from the dashboard: its editor starts from the redacted data, so a save
 * would write `[redacted]` over the job's vote token, and a job's data is bound to its sync's plan
 * anyway (what a job reads comes from the plan; its token from the cluster secret). The request is
 * refused after authentication (an anonymous caller still gets 401), before bull-board reads it.
 */
export function refuseJobDataEdits(app: FastifyInstance): void {
  // Answered here: bull-board's own error handler would make a thrown refusal a 500.
  app.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.url !== JOB_DATA_EDIT) return;
    return sendError(
      reply,
      errorFrom(
        coordinatorErrors,
        'DASHBOARD_JOB_DATA_READONLY',
        'a job\'s data cannot be edited from the dashboard: it is bound to its sync\'s plan and vote token (shown as [redacted]); retry the job, or abort the sync and start another',
      ),
    );
  });
}
