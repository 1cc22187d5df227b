/**
 * A sync record's JSON text, as the store writes it (field `json`): exactly `JSON.stringify(record)`,
 * with the plan's text made once per plan object. The plan lists every shard (at 10,000 shards
 * ~1 MB of JSON) and never changes after planning: every transition keeps the same plan object
 * (state.ts `transition` spreads the record), so serialising it again at each write (the commit's
 * `beginCommit`, then `committed`) redid the same work in the commit's window (issue #11).
 *
 * Safe because a record and its plan are never changed in place (readonly types; a transition makes
 * a new record around the same plan), and a plan read from the store is a new object, serialised
 * anew. The text is spliced key by key as JSON.stringify would write it (keys in insertion order,
 * `undefined` members left out); a property test holds it equal to JSON.stringify.
 */
import type { SyncPlan, SyncRecord } from './state.ts';

const planTexts = new WeakMap<SyncPlan, string>();

/** The plan's JSON text, made once per plan object. */
export function planJson(plan: SyncPlan): string {
  let text = planTexts.get(plan);
  if (text === undefined) {
    text = JSON.stringify(plan);
    planTexts.set(plan, text);
  }
  return text;
}

/** `JSON.stringify(record)`, with the plan's text from planJson. */
export function recordJson(record: SyncRecord): string {
  let out = '{';
  for (const [key, value] of Object.entries(record)) {
    const text = key === 'plan' ? planJson(value as SyncPlan) : (JSON.stringify(value) as string | undefined);
    if (text === undefined) continue;
    out += `${out.length === 1 ? '' : ','}${JSON.stringify(key)}:${text}`;
  }
  return `${out}}`;
}
