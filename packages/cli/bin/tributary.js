#!/usr/bin/env node
// The `tributary` command. Plain JavaScript so that any Node on the PATH can start it: the CLI
// itself is TypeScript and runs on the Node 24 that the npm package `node` pins (type stripping).
// On Node 24 the entry is imported in this process; on any other Node the pinned binary is started
// on it with the same arguments, signals are passed on, and its exit code is this one's.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('../src/main.ts', import.meta.url));

if (Number(process.versions.node.split('.')[0]) === 24) {
  await import(entry);
} else {
  let pinned;
  try {
    pinned = createRequire(import.meta.url).resolve('node/bin/node');
  } catch {
    console.error('tributary: the pinned Node (the npm package `node`) is not installed; run `npm ci` in the clone first');
    process.exit(2);
  }
  const child = spawn(pinned, [entry, ...process.argv.slice(2)], { stdio: 'inherit' });
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
