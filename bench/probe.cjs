// Preloaded into a benchmarked peer (ours or the SDK peer: `node [--expose-gc] --require`). On
// SIGUSR2 it prints one stderr line `bench-probe {json}` with what happened inside the process
// since the last signal (GC pauses; event-loop delay when BENCH_PROBE_LOOP=1) and, under
// --expose-gc, the memory still in use after full GCs (the V8 heap plus ArrayBuffer memory, which
// a server may keep outside the heap, e.g. typed arrays); then it starts counting afresh.
// Never writes to stdout (the protocol's) and never changes what the peer answers.
const { monitorEventLoopDelay, PerformanceObserver } = require('node:perf_hooks');

const loop = process.env.BENCH_PROBE_LOOP === '1' ? monitorEventLoopDelay({ resolution: 2 }) : null;
loop?.enable();
let gcs = { count: 0, totalMs: 0, maxMs: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gcs.count++;
    gcs.totalMs += e.duration;
    gcs.maxMs = Math.max(gcs.maxMs, e.duration);
  }
}).observe({ entryTypes: ['gc'] });

process.on('SIGUSR2', () => {
  const out = { gc: gcs };
  if (loop !== null) {
    out.loopMs = { p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 };
    loop.reset();
  }
  if (typeof global.gc === 'function') {
    global.gc(); global.gc();
    const m = process.memoryUsage();
    out.liveBytes = m.heapUsed + m.arrayBuffers;
  }
  gcs = { count: 0, totalMs: 0, maxMs: 0 };
  process.stderr.write(`bench-probe ${JSON.stringify(out)}\n`);
});
