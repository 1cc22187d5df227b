// Node flags the `tributary` command starts a command's process with (bin/tributary.js). Plain
// JavaScript, no dependencies: it runs before the CLI is loaded, on whatever Node started it.

/**
 * The worker's V8 young generation, in MiB per semi-space (the young generation is two of them).
 * Left to itself, Node 24's V8 sizes the semi-spaces from the heap limit, which it takes from the
 * machine's memory: on a 24 GB machine (a 4.2 GB heap limit) they grew to 64 MiB each, 128 MiB of
 * young generation that a worker touched all of, a third of its 420 MB peak at 8 × 500,000 rows and
 * more than its run buffer or a bucket job's blocks (bench/load/README.md, "Worker peak RSS").
 * 16 MiB caps it at 32 MiB; the CPU measured beside it is in the same section. A worker started
 * with its own --max-semi-space-size or --max-heap-size (in its Node flags or NODE_OPTIONS) keeps it.
 */
export const WORKER_SEMI_SPACE_MB = 16;

/**
 * The coordinator's, the same way. Left to itself its young generation grew to 64 MiB (38 MiB of it
 * resident in an idle coordinator); its work in a sync is many small S3 reads and decodes, ~300 KB
 * allocated per shard blob, nearly all garbage. 8 MiB per semi-space lowered the
 * peaks of `bench/sync/commit-rss.ts --layout bucketed` at 10,000 shards by 54–78 MB at the same CPU
 * (bench/sync/README.md, "The coordinator's young generation and lazy drivers").
 */
export const COORDINATOR_SEMI_SPACE_MB = 8;

/**
 * How far the coordinator's old generation may grow past what the last full GC left alive, in
 * percent (V8's `--heap-growing-percent`). Left to V8, on this kind of machine the limit is set 1.1
 * to 4 times the live heap: at 10,000 shards the live heap was 50–65 MB after a GC while the heap's
 * pages reached ~150 MB resident, the prefetches' promoted garbage, and the coordinator peaked at
 * 337–404 MB end to end. At 25 % it peaked at 231–256 MB, for ~15 % more of the coordinator's
 * CPU in that sync and 10–60 % more per API request under heavy polling (bench/sync/README.md,
 * "The coordinator's old generation"). Only the coordinator: a worker's heap is mostly its
 * buffers, which are live.
 */
export const COORDINATOR_HEAP_GROWING_PERCENT = 25;

const SEMI_SPACE_MB = { worker: WORKER_SEMI_SPACE_MB, coordinator: COORDINATOR_SEMI_SPACE_MB };

/**
 * glibc malloc's mmap threshold for a worker, in bytes: every allocation this large or larger gets
 * its own mapping, given back to the system when freed. Left to glibc, the threshold rises (up to
 * 32 MiB) each time such a block is freed, so a worker's run blocks, Parquet pages and upload
 * parts came from the main heap after the first few; the heap could not shrink past the small
 * blocks allocated between them, and held 130–165 MB resident through a load where the live
 * buffers were 30–110 MB, a third of the worker's peak (bench/load/README.md, "glibc's heap").
 * Fixed at 128 KiB (glibc's starting value) the heap held 70–93 MB and the peak fell by ~30 MB
 * (350 against 379 MB at the most, three interleaved rounds).
 * Given as MALLOC_MMAP_THRESHOLD_ in the process's environment, read by glibc when the process
 * starts (other C libraries ignore it); a worker started with its own (that variable, or
 * glibc.malloc.mmap_threshold in GLIBC_TUNABLES) keeps it.
 */
export const WORKER_MMAP_THRESHOLD_BYTES = 131072;

/** The command of a `tributary` command line: the first argument that is not an option (or the value of --config). */
export function commandOf(args) {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--config') i += 1;
    else if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

/**
 * The Node flags to add for `args` (the command line after `tributary`), given the process's own
 * Node flags (`process.execArgv`) and NODE_OPTIONS: for a worker or a coordinator, the young
 * generation's bound, and for a coordinator the old generation's growth, unless one of them
 * already sizes the heap (then none of ours); the growth also not when one of them sets it;
 * nothing for any other command.
 */
export function nodeFlagsFor(args, execArgv, nodeOptions) {
  const command = commandOf(args);
  if (command !== 'worker' && command !== 'coordinator') return [];
  const given = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)];
  if (given.some((flag) => /^--max[-_](semi[-_]space|heap)[-_]size(=|$)/.test(flag))) return [];
  const flags = [`--max-semi-space-size=${SEMI_SPACE_MB[command]}`];
  if (command === 'coordinator' && !given.some((flag) => /^--heap[-_]growing[-_]percent(=|$)/.test(flag))) {
    flags.push(`--heap-growing-percent=${COORDINATOR_HEAP_GROWING_PERCENT}`);
  }
  return flags;
}

/**
 * The environment variables to add for `args`, given the process's environment: for a worker,
 * glibc malloc's mmap threshold, unless the environment sets it already; nothing for any other
 * command.
 */
export function nodeEnvFor(args, env) {
  if (commandOf(args) !== 'worker') return {};
  if (env.MALLOC_MMAP_THRESHOLD_ !== undefined || /(^|[:,])glibc\.malloc\.mmap_threshold=/.test(env.GLIBC_TUNABLES ?? '')) return {};
  return { MALLOC_MMAP_THRESHOLD_: String(WORKER_MMAP_THRESHOLD_BYTES) };
}
