// deploy/: the Kubernetes manifests pass a strict schema check (kubeconform against the Kubernetes
// JSON schemas; KEDA's ScaledObject against KEDA's API types), the compose file loads as Docker
// Compose loads it (compose-go: the Compose Specification's schema), broken copies fail, and the
// autoscaler watches the Redis lists BullMQ really keeps the shard queue in. infra/deploy-check.sh
// builds and caches the tools.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { SYNC_QUEUES, clusterSecretFromEnv, isTributaryError } from '@tributary/protocol';
import { loadSourceAccess } from '@tributary/sources';
import { services, uniqueName } from '@tributary/testkit';

const repo = resolve(import.meta.dirname, '../..');
const k8s = join(repo, 'deploy/k8s');

interface Manifest {
  readonly file: string;
  readonly kind: string;
  readonly metadata: { readonly name: string };
  readonly [key: string]: unknown;
}

function manifestsIn(dir: string): Manifest[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(dir, file), 'utf8')).map((doc) => {
        assert.deepEqual(doc.errors, [], `${file} parses`);
        return { ...(doc.toJS() as Omit<Manifest, 'file'>), file } as Manifest;
      }),
    );
}

/** infra/deploy-check.sh <what> <args>: the checker's exit code and its text. */
function deployCheck(what: 'k8s' | 'compose', args: string[], env: NodeJS.ProcessEnv = process.env): { status: number | null; out: string } {
  const result = spawnSync('bash', [join(repo, 'infra/deploy-check.sh'), what, ...args], { encoding: 'utf8', env });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

const kubeconform = (dir: string) => deployCheck('k8s', [dir]);

/** Validates a KEDA ScaledObject against KEDA's API types; the error text, or undefined. */
function scaledObjectError(manifest: Manifest): string | undefined {
  const { file: _file, ...object } = manifest;
  try {
    new ScaledObject(object as unknown as ConstructorParameters<typeof ScaledObject>[0]).validate();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const summaryOf = (out: string) => /Summary: (\d+) resources? found in \d+ files? - Valid: (\d+), Invalid: (\d+), Errors: (\d+), Skipped: (\d+)/.exec(out);

let scratch: string;
before(() => {
  // Builds kubeconform and compose-check and fetches the schemas on the first run (cached in
  // ~/.cache/tributary).
  const install = spawnSync('bash', [join(repo, 'infra/deploy-check.sh'), 'install'], { encoding: 'utf8' });
  assert.equal(install.status, 0, install.stderr);
  scratch = mkdtempSync(join(tmpdir(), 'deploy-manifests-'));
});
after(() => rmSync(scratch, { recursive: true, force: true }));

describe('deploy/k8s', () => {
  test('every manifest passes: built-in kinds by kubeconform -strict, the ScaledObject by KEDA’s types', () => {
    const manifests = manifestsIn(k8s);
    const custom = manifests.filter((m) => m.kind === 'ScaledObject');
    assert.deepEqual(
      [...new Set(manifests.map((m) => m.kind))].sort(),
      ['ConfigMap', 'Deployment', 'ScaledObject', 'Secret', 'Service'],
      'a new custom kind needs a check of its own here (kubeconform skips only ScaledObject and TriggerAuthentication)',
    );
    const { status, out } = kubeconform(k8s);
    assert.equal(status, 0, out);
    const summary = summaryOf(out);
    assert.ok(summary, out);
    const [, found, valid, invalid, errors, skipped] = summary.map(Number);
    assert.equal(found, manifests.length, out);
    assert.deepEqual({ valid, invalid, errors, skipped }, { valid: manifests.length - custom.length, invalid: 0, errors: 0, skipped: custom.length }, out);
    for (const m of custom) assert.equal(scaledObjectError(m), undefined, `${m.file}: ${m.metadata.name}`);
  });

  test('a broken copy fails: an unknown field and a wrong type in the coordinator, a ScaledObject without a trigger type', () => {
    const broken = join(scratch, 'k8s');
    cpSync(k8s, broken, { recursive: true });
    const coordinator = join(broken, 'coordinator.yaml');
    const text = readFileSync(coordinator, 'utf8');
    assert.ok(text.includes('readinessProbe:') && text.includes('replicas: 1'));
    writeFileSync(coordinator, text.replace('readinessProbe:', 'readinessProb:').replace('replicas: 1', 'replicas: "one"'));
    const { status, out } = kubeconform(broken);
    assert.equal(status, 1, out);
    assert.match(out, /coordinator\.yaml - Deployment tributary-coordinator is invalid/);
    assert.match(out, /additional properties 'readinessProb' not allowed/);
    assert.match(out, /'\/spec\/replicas': got string, want null or integer/);
    assert.match(out, /Valid: \d+, Invalid: 1, Errors: 0/);

    const autoscaling = join(broken, 'worker-autoscaling.yaml');
    writeFileSync(autoscaling, readFileSync(autoscaling, 'utf8').replaceAll('type: redis', 'typ: redis').replace('minReplicaCount: 1', 'minReplicaCount: "1"'));
    const [scaled] = manifestsIn(broken).filter((m) => m.kind === 'ScaledObject');
    assert.ok(scaled);
    const error = scaledObjectError(scaled);
    assert.match(error ?? '', /spec\/minReplicaCount must be integer/);
    assert.match(error ?? '', /spec\/triggers\/0 must have required property type/);
  });

  test('the Secrets template starts nothing (empty cluster secret), and its connections file is one the processes accept', () => {
    const secrets = manifestsIn(k8s).filter((m) => m.kind === 'Secret') as unknown as { metadata: { name: string }; stringData: Record<string, string> }[];
    const data = (name: string, key: string) => secrets.find((s) => s.metadata.name === name)?.stringData[key];
    const config = manifestsIn(k8s).find((m) => m.kind === 'ConfigMap') as unknown as { data: Record<string, string> };
    const files: Record<string, string | undefined> = {
      [config.data.TRIBUTARY_CLUSTER_SECRET_FILE ?? '']: data('tributary-cluster', 'cluster-secret'),
      [config.data.TRIBUTARY_CONNECTIONS_FILE ?? '']: data('tributary-connections', 'connections.json'),
    };
    const readText = (path: string) => {
      const text = files[path];
      if (text === undefined) throw new Error(`no such file ${path}`);
      return text;
    };
    assert.throws(
      () => clusterSecretFromEnv({ TRIBUTARY_CLUSTER_SECRET_FILE: config.data.TRIBUTARY_CLUSTER_SECRET_FILE }, readText),
      (e: unknown) => isTributaryError(e) && e.code === 'CLUSTER_SECRET_INVALID',
    );
    const access = loadSourceAccess({ env: { TRIBUTARY_CONNECTIONS_FILE: config.data.TRIBUTARY_CONNECTIONS_FILE }, readText, realpath: async (p: string) => realpathSync(p) });
    assert.deepEqual({ connections: access.connections, roots: access.roots }, { connections: {}, roots: [] });
  });

  test('the autoscaler reads the lists BullMQ keeps waiting and running shards in, with the worker’s own settings', async () => {
    const manifests = manifestsIn(k8s);
    const config = manifests.find((m) => m.kind === 'ConfigMap') as unknown as { data: Record<string, string> };
    const scaled = manifests.find((m) => m.kind === 'ScaledObject') as unknown as {
      spec: { scaleTargetRef: { name: string }; advanced: { scalingModifiers: { target: string } }; triggers: { name: string; metadata: Record<string, string> }[] };
    };
    const worker = manifests.find((m) => m.kind === 'Deployment' && m.metadata.name === scaled.spec.scaleTargetRef.name) as unknown as {
      spec: { template: { spec: { containers: { args: string[] }[] } } };
    };
    assert.ok(worker, 'the ScaledObject targets the worker Deployment');
    const args = worker.spec.template.spec.containers[0]?.args ?? [];
    assert.equal(scaled.spec.advanced.scalingModifiers.target, args[args.indexOf('--concurrency') + 1], 'target = shards per worker');
    const prefix = config.data.TRIBUTARY_PREFIX;
    const lists = Object.fromEntries(scaled.spec.triggers.map((t) => [t.name, t.metadata.listName]));
    assert.deepEqual(lists, { waiting: `${prefix}:${SYNC_QUEUES.writeShard}:wait`, running: `${prefix}:${SYNC_QUEUES.writeShard}:active` });
    for (const t of scaled.spec.triggers) {
      for (const key of ['hostFromEnv', 'portFromEnv']) assert.ok(config.data[t.metadata[key] ?? ''], `${t.name}.${key} names a variable of the ConfigMap`);
    }

    // The same keys in a real BullMQ queue, under a prefix of this test's own: a waiting job is in
    // the …:wait list, a taken one in the …:active list.
    const testPrefix = uniqueName('t-deploy');
    const connection = { ...services.redis, maxRetriesPerRequest: null };
    const queue = new Queue(SYNC_QUEUES.writeShard, { connection, prefix: testPrefix });
    const taker = new Worker(SYNC_QUEUES.writeShard, null, { connection, prefix: testPrefix });
    const redis = new Redis(services.redis);
    try {
      await queue.add('write-shard', {});
      const key = (list: string) => list.replace(`${prefix}:`, `${testPrefix}:`);
      assert.equal(await redis.type(key(lists.waiting ?? '')), 'list');
      assert.equal(await redis.llen(key(lists.waiting ?? '')), 1);
      const job = await taker.getNextJob('deploy-test-token');
      assert.ok(job);
      assert.equal(await redis.type(key(lists.running ?? '')), 'list');
      assert.equal(await redis.llen(key(lists.running ?? '')), 1);
      assert.equal(await redis.llen(key(lists.waiting ?? '')), 0);
    } finally {
      await taker.close();
      await queue.obliterate({ force: true });
      await queue.close();
      redis.disconnect();
    }
  });
});

describe('deploy/compose.yaml', () => {
  const compose = join(repo, 'deploy/compose.yaml');
  // The S3 keys come from deploy/.env, which the compose file requires; any values do here.
  const keys = { TRIBUTARY_S3_ACCESS_KEY: 'check-key', TRIBUTARY_S3_SECRET_KEY: 'check-secret' };
  const withKeys = { ...process.env, ...keys };
  const { TRIBUTARY_S3_ACCESS_KEY: _key, TRIBUTARY_S3_SECRET_KEY: _secret, ...withoutKeys } = process.env;

  test('loads as Docker Compose loads it: the Compose Specification schema, then interpolation', () => {
    const { status, out } = deployCheck('compose', [compose], withKeys);
    assert.equal(status, 0, out);
    assert.equal(out, 'tributary: 5 services\n');
  });

  test('refuses to load without the S3 keys, naming the variable and where to set it', () => {
    const { status, out } = deployCheck('compose', [compose], withoutKeys);
    assert.equal(status, 1, out);
    assert.match(out, /required variable TRIBUTARY_S3_ACCESS_KEY is missing a value: set it in deploy\/\.env/);
    assert.doesNotMatch(out, /check-secret/);
  });

  test('a broken copy fails: an unknown key, a wrong type', () => {
    const dir = join(scratch, 'deploy');
    cpSync(join(repo, 'deploy'), dir, { recursive: true });
    const broken = join(dir, 'compose.yaml');
    const text = readFileSync(compose, 'utf8');
    assert.ok(text.includes('    stop_grace_period: 60s') && text.includes('      replicas: 2'));
    writeFileSync(broken, text.replace('    stop_grace_period: 60s', '    stop_grace_periods: 60s'));
    const unknown = deployCheck('compose', [broken], withKeys);
    assert.equal(unknown.status, 1, unknown.out);
    assert.match(unknown.out, /services\.coordinator.*stop_grace_periods/);
    writeFileSync(broken, text.replace('      replicas: 2', '      replicas: two'));
    const wrongType = deployCheck('compose', [broken], withKeys);
    assert.equal(wrongType.status, 1, wrongType.out);
    assert.match(wrongType.out, /replicas/);
  });

  test('Redis keeps what BullMQ needs, and the probes and workers use the settings the manifests use', () => {
    const [doc] = parseAllDocuments(readFileSync(compose, 'utf8'), { merge: true });
    assert.ok(doc);
    const services = (doc.toJS() as { services: Record<string, { command?: string[]; environment?: Record<string, string>; healthcheck?: { test: string[] } }> }).services;
    const redis = services.redis?.command?.join(' ') ?? '';
    assert.match(redis, /--appendonly yes/);
    assert.match(redis, /--maxmemory-policy noeviction/);
    assert.deepEqual(services.worker?.command?.slice(0, 2), ['worker', '--concurrency']);
    assert.deepEqual(services.coordinator?.command, ['coordinator']);
    assert.match(services.coordinator?.healthcheck?.test.join(' ') ?? '', /\/readyz/);
    for (const name of ['coordinator', 'worker']) {
      const env = services[name]?.environment ?? {};
      assert.equal(env.TRIBUTARY_CLUSTER_SECRET_FILE, '/run/secrets/cluster-secret', name);
      assert.equal(env.TRIBUTARY_REDIS_HOST, 'redis', name);
    }
    const config = manifestsIn(k8s).find((m) => m.kind === 'ConfigMap') as unknown as { data: Record<string, string> };
    assert.equal(services.coordinator?.environment?.TRIBUTARY_PREFIX, config.data.TRIBUTARY_PREFIX, 'one prefix: the autoscaler\'s list names depend on it');
    assert.deepEqual(services.coordinator?.environment?.TRIBUTARY_AUTH_PUBLIC?.split(' '), ['/healthz', '/readyz', '/metrics']);
  });
});
