// npm run test:differential [-- --seed S | --seeds N [--from F]]: runs test/differential with the
// CI seeds, one seed (to replay a failure), or N seeds from F (default: a start drawn from the clock,
// printed so the run can be repeated). Other arguments go to node as they do for scripts/test.mjs.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const env = { ...process.env };
const rest = [];
for (let i = 0; i < args.length; i++) {
  const value = () => {
    const v = args[++i];
    if (v === undefined || !/^\d+$/.test(v)) {
      console.error(`${args[i - 1]} takes a non-negative integer`);
      process.exit(2);
    }
    return v;
  };
  if (args[i] === '--seed') env.TRIBUTARY_DIFFERENTIAL_SEED = value();
  else if (args[i] === '--seeds') env.TRIBUTARY_DIFFERENTIAL_SEEDS = value();
  else if (args[i] === '--from') env.TRIBUTARY_DIFFERENTIAL_FROM = value();
  else rest.push(args[i]);
}
if (env.TRIBUTARY_DIFFERENTIAL_SEEDS !== undefined && env.TRIBUTARY_DIFFERENTIAL_FROM === undefined) {
  env.TRIBUTARY_DIFFERENTIAL_FROM = String(1000 + (Date.now() % 1_000_000));
  console.log(`differential: seeds ${env.TRIBUTARY_DIFFERENTIAL_FROM}.. (repeat with --from ${env.TRIBUTARY_DIFFERENTIAL_FROM})`);
}
const runner = fileURLToPath(new URL('./test.mjs', import.meta.url));
const result = spawnSync(process.execPath, [runner, 'differential', ...(rest.length > 0 ? ['--', ...rest] : [])], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
