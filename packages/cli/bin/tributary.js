#!/usr/bin/env node
// The `tributary` command. Plain JavaScript so that any Node on the PATH can start it: the CLI
// itself is TypeScript and runs on the Node 24 that the npm package `node` pins (type stripping).
// On Node 24 the entry is imported in this process; on any other Node the pinned binary is started
// on it with the same arguments, signals are passed on, and its exit code is this one's.
// A command whose process needs Node flags or environment variables (node-flags.js: a worker's young
// generation, its malloc threshold) gets them: on Node 24 the process replaces itself (execve: the
// same pid, no parent left) before the CLI loads.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { nodeEnvFor, nodeFlagsFor } from './node-flags.js';

const entry = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const args = process.argv.slice(2);
const flags = nodeFlagsFor(args, process.execArgv, process.env.NODE_OPTIONS);
const env = nodeEnvFor(args, process.env);
const restart = flags.length > 0 || Object.keys(env).length > 0;

if (Number(process.versions.node.split('.')[0]) === 24) {
  if (restart && typeof process.execve === 'function') {
    process.execve(process.execPath, [process.execPath, ...flags, ...process.execArgv, fileURLToPath(import.meta.url), ...args], { ...process.env, ...env });
  }
  await import(entry);
} else {
  let pinned;
  try {
    pinned = createRequire(import.meta.url).resolve('node/bin/node');
  } catch {
    console.error('tributary: the pinned Node (the npm package `node`) is not installed; run `npm ci` in the clone first');
    process.exit(2);
  }
  const child = spawn(pinned, [...flags, entry, ...args], { stdio: 'inherit', env: { ...process.env, ...env } });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => child.kill(signal));
  }
  child.on('error', (error) => {
    console.error(`tributary: cannot start ${pinned}: ${error.message}`);
    process.exit(2);
  });
  child.on('exit', (code, signal) => {
    if (signal !== null) {
      // Die of the same signal, as a shell expects: without this file's handler.
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
}
