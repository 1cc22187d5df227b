/**
 * What StringIntern (values/string-intern.ts) does to a text column's decode, in one process: CELLS
 * cells laid in one buffer as a batch's row bytes are, decoded one by one as the MySQL text cells do
 * (latin1 for ASCII, UTF-8 otherwise), either directly or through a StringIntern, alternately, RUNS
 * times each, for three columns of the load benchmark's kind: a status (5 values, NULL-free here),
 * a code of 500 values, and a note (every value distinct, UTF-8). Prints the process CPU time per
 * million cells, median and range (on a shared machine the CPU time is the steadier figure).
 *
 *   node packages/sources/bench/string-intern.bench.ts [cells = 1000000] [runs = 7]
 */
import { cpuUsage } from 'node:process';
import { StringIntern } from '../src/values/string-intern.ts';

const CELLS = Number(process.argv[2] ?? 1_000_000);
const RUNS = Number(process.argv[3] ?? 7);

function utf8Text(b: Uint8Array, s: number, e: number): string {
  const buffer = b as Buffer;
  for (let i = s; i < e; i++) if ((b[i] ?? 0) >= 0x80) return buffer.toString('utf8', s, e);
  return buffer.toString('latin1', s, e);
}

function laid(value: (i: number) => string): { bytes: Buffer; starts: Int32Array; ends: Int32Array } {
  const texts = Array.from({ length: CELLS }, (_, i) => value(i));
  const bytes = Buffer.alloc(texts.reduce((n, t) => n + Buffer.byteLength(t) + 1, 0));
  const starts = new Int32Array(CELLS);
  const ends = new Int32Array(CELLS);
  let at = 0;
  texts.forEach((t, i) => {
    bytes[at++] = 0xfe; // the length byte of a row packet's cell
    starts[i] = at;
    at += bytes.write(t, at, 'utf8');
    ends[i] = at;
  });
  return { bytes, starts, ends };
}

const STATUSES = ['NEW', 'PAID', 'SHIPPED', 'DELIVERED', 'CANCELLED'];
const NOTES = ['café ', 'naïve ', '東京 ', 'Zürich ', '😀 emoji ', 'plain ', 'Ωμέγα '];
const columns = {
  status: laid((i) => STATUSES[i % 5] as string),
  code: laid((i) => `C-${(i * 7919) % 500}`),
  note: laid((i) => `${NOTES[i % 7]}${i}`),
};

function decode(column: (typeof columns)[keyof typeof columns], intern: StringIntern | undefined): number {
  const { bytes, starts, ends } = column;
  let units = 0;
  for (let i = 0; i < CELLS; i++) {
    const s = starts[i] as number;
    const e = ends[i] as number;
    units += (intern === undefined ? utf8Text(bytes, s, e) : intern.get(bytes, s, e, utf8Text)).length;
  }
  return units;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
for (const [name, column] of Object.entries(columns)) {
  const times: Record<'direct' | 'intern', number[]> = { direct: [], intern: [] };
  decode(column, undefined); // warm both paths
  decode(column, new StringIntern());
  for (let r = 0; r < RUNS; r++) {
    for (const way of r % 2 === 0 ? (['direct', 'intern'] as const) : (['intern', 'direct'] as const)) {
      const t0 = cpuUsage();
      const units = decode(column, way === 'intern' ? new StringIntern() : undefined);
      const used = cpuUsage(t0);
      if (units <= 0) throw new Error('nothing decoded');
      times[way].push(((used.user + used.system) / 1000) * (1_000_000 / CELLS));
    }
  }
  const show = (xs: number[]): string => `${median(xs).toFixed(0)} ms [${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}]`;
  console.log(`${name.padEnd(7)} direct ${show(times.direct)}   intern ${show(times.intern)}   per million cells, ${RUNS} runs each (ratio of medians ${(median(times.direct) / median(times.intern)).toFixed(2)}×)`);
}
