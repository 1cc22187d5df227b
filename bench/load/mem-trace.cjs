// Preloaded into a worker: every 100 ms one line of VmRSS/VmHWM and process.memoryUsage() to $MEMTRACE_DIR/<pid>.tsv;
// its attempts' starts and ends to <pid>.events, its garbage collections to <pid>.gc, with MEMTRACE_SMAPS set its mappings to <pid>.smaps.
const fs = require('node:fs');
const dir = process.env.MEMTRACE_DIR;
if (dir) {
  const file = `${dir}/${process.pid}.tsv`;
  const fd = fs.openSync(file, 'a');
  fs.writeSync(fd, 't_ms\trss\thwm\theapTotal\theapUsed\texternal\tarrayBuffers\tnewSpace\toldSpace\tlargeObj\n');
  const t0 = Date.now();
  const kb = (s, k) => { const m = s.match(new RegExp(k + ':\\s+(\\d+)')); return m ? Math.round(Number(m[1]) / 1024) : -1; };
  const v8 = require('node:v8');
  const sp = () => { const m = {}; for (const x of v8.getHeapSpaceStatistics()) m[x.space_name] = Math.round(x.space_size / 1048576); return `${m.new_space}\t${m.old_space}\t${m.large_object_space}`; };
  const t = setInterval(() => {
    const s = fs.readFileSync('/proc/self/status', 'utf8');
    const u = process.memoryUsage();
    const mb = (x) => Math.round(x / 1048576);
    fs.writeSync(fd, `${Date.now() - t0}\t${kb(s, 'VmRSS')}\t${kb(s, 'VmHWM')}\t${mb(u.heapTotal)}\t${mb(u.heapUsed)}\t${mb(u.external)}\t${mb(u.arrayBuffers)}\t${sp()}\n`);
  }, 100);
  t.unref();
}
if (dir) {
  const ev = fs.openSync(`${dir}/${process.pid}.events`, 'a');
  const t0 = Date.now();
  const orig = fs.writeSync;
  fs.writeSync = function (fd, data, ...rest) {
    if (fd === 2 && typeof data === 'string' && data.includes('attempt')) {
      const m = data.match(/"msg":"([^"]*)"/); const s = data.match(/"shardId":"?([^",]*)/); const b = data.match(/"bucket":(\d+)/);
      orig.call(fs, ev, `${Date.now() - t0}\t${m ? m[1] : ''}\t${s ? s[1] : ''}\t${b ? b[1] : ''}\n`);
    }
    return orig.call(fs, fd, data, ...rest);
  };
}
// Every garbage collection's kind, flags and duration to <pid>.gc (perf_hooks 'gc' entries).
if (dir) {
  const gc = fs.openSync(`${dir}/${process.pid}.gc`, 'a');
  const { PerformanceObserver, constants } = require('node:perf_hooks');
  const kinds = { [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major', [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor', [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental', [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb' };
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) fs.writeSync(gc, `${Math.round(e.startTime)}\t${kinds[e.detail.kind] ?? e.detail.kind}\t${e.detail.flags}\t${e.duration.toFixed(2)}\n`);
  });
  obs.observe({ entryTypes: ['gc'] });
}
// Every 5 s, resident memory by mapping kind (/proc/self/smaps): [heap], anonymous (by size class), files, to <pid>.smaps.
if (dir && process.env.MEMTRACE_SMAPS) {
  const out = fs.openSync(`${dir}/${process.pid}.smaps`, 'a');
  const t0 = Date.now();
  const t = setInterval(() => {
    const text = fs.readFileSync('/proc/self/smaps', 'utf8');
    const sums = {};
    let key = '';
    for (const line of text.split('\n')) {
      const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
      if (head) {
        const size = (parseInt(head[2], 16) - parseInt(head[1], 16)) / 1048576;
        const name = head[3];
        key = name === '' ? (size >= 60 && size <= 64 ? 'anon~64M' : size >= 1 ? 'anon>=1M' : 'anon<1M') : name.startsWith('[') ? name : name.includes('.so') || name.includes('node') ? 'code' : 'file';
        continue;
      }
      const rss = /^Rss:\s+(\d+) kB/.exec(line);
      if (rss) sums[key] = (sums[key] ?? 0) + Number(rss[1]) / 1024;
    }
    fs.writeSync(out, `${Date.now() - t0}\t${Object.entries(sums).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k}=${v.toFixed(0)}`).join(' ')}\n`);
  }, 5000);
  t.unref();
}
// Every 5 s, CPU seconds by thread name (/proc/self/task/*/stat: main, V8 helpers, libuv pool) to <pid>.threads.
if (dir && process.env.MEMTRACE_THREADS) {
  const out = fs.openSync(`${dir}/${process.pid}.threads`, 'a');
  const t0 = Date.now();
  const tick = Number(require('node:child_process').execSync('getconf CLK_TCK', { encoding: 'utf8' }).trim()) || 100;
  const t = setInterval(() => {
    const sums = {};
    for (const task of fs.readdirSync('/proc/self/task')) {
      let stat;
      try {
        stat = fs.readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
      } catch {
        continue;
      }
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/[0-9]+$/, '').trim();
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      sums[name] = (sums[name] ?? 0) + (Number(fields[11]) + Number(fields[12])) / tick;
    }
    fs.writeSync(out, `${Date.now() - t0}\t${Object.entries(sums).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k}=${v.toFixed(2)}`).join(' ')}\n`);
  }, 5000);
  t.unref();
}
