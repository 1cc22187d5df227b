/**
 * docs/configuration.md, generated from the key table (keys.ts). `--write` rewrites the file; the
 * unit test fails when the file differs from what this prints.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CONFIG_FILE_ENV, CONFIG_KEYS, type KeySpec } from './keys.ts';

export const CONFIGURATION_DOC = fileURLToPath(new URL('../../../../docs/configuration.md', import.meta.url));

const cell = (s: string) => s.replaceAll('|', '\\|');

export function configurationDoc(): string {
  const rows = Object.entries(CONFIG_KEYS).map(([key, s]: [string, KeySpec]) => {
    const def = s.defaultDoc ?? (s.default === undefined ? 'unset' : `\`${s.default}\``);
    const flag = s.flag === undefined ? (s.secret === true ? '— (secret)' : '—') : `\`--${s.flag}\``;
    return `| \`${key}\` | \`${s.env}\` | ${flag} | ${def} | ${cell(s.expect)} | ${s.usedBy.join(', ')} | ${cell(s.doc)} |`;
  });
  return `# Configuration

<!-- Generated from packages/cli/src/config/keys.ts by \`node packages/cli/src/config/doc.ts --write\`; a unit test keeps it equal. -->

The coordinator, the workers and the \`tributary\` commands read one configuration, validated at
start. Each key can be set, from highest precedence to lowest, by:

1. a **flag** of the command (\`tributary coordinator --port 9000\`), where the key has one;
2. an **environment variable** (an empty one counts as unset);
3. a **JSON file** named by \`--config <file>\` or \`${CONFIG_FILE_ENV}\`, nested by the dots of the
   key: \`{"redis": {"port": 6390}, "coordinator": {"port": 9000}, "sources": {"roots": ["file:///data"]}}\`
   (an unknown key in the file is an error, so a typo does not pass silently);
4. the **default** below.

A bad value stops the process before it connects to anything: exit code 2 (a worker: 1) and one
line per bad key on stderr, naming the key and where the value came from, never the value.
Secrets have no flag (a command line is visible to every user of the machine); give them in the
environment or the file (keep it readable by its owner only).

When Redis or S3 cannot be reached at start (both are tried at once), the coordinator and the workers print one line per
attempt, wait 250 ms, then twice as long each time up to 5 s, and exit with code 3 once
\`startupTimeoutMs\` has passed.

| key | environment variable | flag | default | accepts | used by | what it does |
|---|---|---|---|---|---|---|
${rows.join('\n')}
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--write')) writeFileSync(CONFIGURATION_DOC, configurationDoc());
  else process.stdout.write(configurationDoc());
}
