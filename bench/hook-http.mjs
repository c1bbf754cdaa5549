// The HTTP hook endpoint against a bare Node HTTP server (bench/floor-http.mjs), issue 33: server CPU
// per decision (user + system of the server process from /proc over the timed calls) and p99 under
// 32 concurrent keep-alive callers, the two servers alternating round by round, each round a fresh
// process. CPU is the steadier figure on a shared machine; the p99 is the one a caller feels.
// BENCH_BASE_MAIN=/other/dist/main.cjs adds that build as a third server in the same rotation (an A/B of a change);
// several builds, separated by ':', each get a place in the rotation and a line of their own on stderr
// (BENCH_BASE_ANSWERS=any: their answers are not checked, for copies changed not to decide).
import { join } from 'node:path';
import { SERVER_MAIN, cpuMsOf, median, ms, now, percentile, round, row, tempDir } from './lib.mjs';
import { RawClient, startServer } from './http.mjs';

const FLOOR_HTTP = new URL('./floor-http.mjs', import.meta.url).pathname;
/** Other builds timed in the same rotation, by name (`base`, then `base2`, …). */
const BASES = new Map((process.env.BENCH_BASE_MAIN ?? '').split(':').filter(Boolean).map((main, i) => [i === 0 ? 'base' : `base${i + 1}`, main]));
const CALLERS = 32;
/** Issue 33: both figures at most 1.5× the bare server's, measured in one alternating run. */
const TARGET = 1.5;

/** One round on a fresh server: warm-up, then `requests` timed calls; {p99, cpuUs}. */
async function round1(kind, dir, requests, warmup) {
  const events = ['src/main.ts', 'docs/plan.md'].map((file) => ({
    hook_event_name: 'PreToolUse', tool_name: 'Edit', cwd: dir, session_id: 'bench', transcript_path: '/tmp/t.jsonl',
    tool_input: { file_path: join(dir, file), old_string: 'a', new_string: 'b' },
  }));
  const ours = kind !== 'floor';
  // Every answer is checked, but for other builds under BENCH_BASE_ANSWERS=any (copies changed to
  // skip a step of the decision, timed to see what the step costs).
  const judged = kind === 'ours' || (ours && process.env.BENCH_BASE_ANSWERS !== 'any');
  const args = ours
    ? [BASES.get(kind) ?? SERVER_MAIN, 'serve', '--http', '--port', '0', '--project-root', dir, '--config-dir', join(dir, 'global-config')]
    : [FLOOR_HTTP];
  const extra = ours ? (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean) : [];
  const server = startServer(process.execPath, [...extra, ...args]);
  try {
    const url = `${new URL(await server.url).origin}${ours ? '/hooks/claude-code?mode=architect' : '/'}`;
    const callers = Array.from({ length: CALLERS }, () => new RawClient(url));
    const call = async (c, i) => {
      const t = now();
      const res = await c.post(events[i % 2], {});
      const elapsed = now() - t;
      if (res.status !== 200 || (judged && res.text.includes('"deny"') !== (i % 2 === 0))) throw new Error(`hook answer ${res.status}: ${res.text.slice(0, 200)}`);
      return elapsed;
    };
    const drive = async (count) => {
      const latencies = [];
      let next = 0;
      await Promise.all(callers.map(async (c) => { while (next < count) latencies.push(await call(c, next++)); }));
      return latencies;
    };
    await drive(warmup);
    const cpu0 = cpuMsOf(server.child.pid);
    const latencies = await drive(requests);
    const cpuUs = ((cpuMsOf(server.child.pid) - cpu0) * 1000) / requests;
    for (const c of callers) c.destroy();
    return { p99: percentile(latencies, 99), p50: percentile(latencies, 50), cpuUs };
  } finally { await server.stop(); }
}

export async function hookHttp({ rounds, requests }) {
  const t = tempDir('hookhttp');
  try {
    const kinds = ['ours', 'floor', ...BASES.keys()];
    const runs = Object.fromEntries(kinds.map((k) => [k, []]));
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? kinds : [...kinds].reverse();
      for (const kind of order) runs[kind].push(await round1(kind, t.dir, requests, Math.min(requests, 5000)));
    }
    const pick = (kind, key) => median(runs[kind].map((x) => x[key]));
    const cpu = pick('ours', 'cpuUs') / pick('floor', 'cpuUs');
    const p99 = pick('ours', 'p99') / pick('floor', 'p99');
    const detail = (kind) => runs[kind].map((x) => `${x.cpuUs.toFixed(0)} µs/${x.p99.toFixed(2)} ms`).join(', ');
    process.stderr.write(`\nhookhttp rounds (cpu/p99): ${kinds.map((k) => `${k} ${detail(k)}`).join('; ')}\n`);
    for (const [kind, main] of BASES) {
      process.stderr.write(`hookhttp ${kind} build (${main}): ${pick(kind, 'cpuUs').toFixed(1)} µs, p99 ${ms(pick(kind, 'p99'))}; ours ÷ ${kind} CPU ${(pick('ours', 'cpuUs') / pick(kind, 'cpuUs')).toFixed(3)}×\n`);
    }
    return [
      row(`HTTP hook: server CPU per decision, ${CALLERS} callers`, {
        ours: `${pick('ours', 'cpuUs').toFixed(1)} µs`, floor: `${pick('floor', 'cpuUs').toFixed(1)} µs (bare Node HTTP)`, ratio: cpu,
        target: `≤ ${TARGET.toFixed(2)}× bare`, pass: cpu <= TARGET,
        keys: { hook_http_cpu_us: round(pick('ours', 'cpuUs'), 1), hook_http_floor_cpu_us: round(pick('floor', 'cpuUs'), 1), hook_http_cpu_ratio: round(cpu) },
      }),
      row(`HTTP hook: decision p99 (p50), ${CALLERS} callers`, {
        ours: `${ms(pick('ours', 'p99'))} (${ms(pick('ours', 'p50'))})`, floor: `${ms(pick('floor', 'p99'))} (${ms(pick('floor', 'p50'))})`, ratio: p99,
        target: `≤ ${TARGET.toFixed(2)}× bare`, pass: p99 <= TARGET,
        keys: { hook_http_p99_ms: round(pick('ours', 'p99'), 2), hook_http_floor_p99_ms: round(pick('floor', 'p99'), 2), hook_http_p99_ratio: round(p99) },
      }),
    ];
  } finally {
    t.cleanup();
  }
}
