// Preloaded into a worker: every 100 ms one line of VmRSS/VmHWM and process.memoryUsage() to $MEMTRACE_DIR/<pid>.tsv
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
