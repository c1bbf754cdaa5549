// The shared store's cost (issue 25): HTTP tools/call req/s, p99 and CPU per request at 32 clients
// for the process-local stores and the Redis store (one replica, and two behind a round-robin proxy),
// in one run with the configurations alternating. Two mixes: read-only tools and session tools.
//
// Every request is a 2026-07-28 stateless one (headers and _meta, no Mcp-Session-Id), so each stands
// alone and a round-robin balancer may send it anywhere; a task session is the only state, and it
// lives in the store. Server CPU is user + system of every replica from /proc/<pid>/stat over the
// timed window; Redis CPU and commands come from INFO (cpu, stats, commandstats) of a redis-server
// the bench starts itself (AOF everysec, as docs/deployment.md recommends). The proxy's CPU is shown
// apart: it is the balancer's cost, not ours.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_MAIN, alternate, cpuMsOf, median, now, percentile, projectWithModes, round, row } from './lib.mjs';
import { RawClient, startServer } from './http.mjs';
import { command, redisCounters, redisServerBinary, startRedis } from './redis-instance.mjs';

const PROXY = fileURLToPath(new URL('./rr-proxy.mjs', import.meta.url));
const CLIENTS = 32;
/** The issue's target: the Redis store's server CPU per request at most this many times the file store's. */
const CPU_TARGET = 1.5;
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' } };
const SLUGS = ['code', 'architect', 'ask', 'debug', 'orchestrator'];

/** The configurations, in table order: `file` is the reference every ratio is taken against. */
const CONFIGS = {
  memory: { label: 'memory store', replicas: 1, redis: false, sessionsDir: false },
  file: { label: 'file store (--sessions-dir)', replicas: 1, redis: false, sessionsDir: true },
  redis: { label: 'Redis store, 1 replica', replicas: 1, redis: true, sessionsDir: false },
  redis2: { label: 'Redis store, 2 replicas + proxy', replicas: 2, redis: true, sessionsDir: false },
};

/**
 * The two mixes, as the call a client makes at its n-th step. read: get_mode_info and list_modes
 * (they need no store). session: a cycle of create_task, get_task_info, switch_mode, get_task_info,
 * switch_mode on the client's newest session (40% writes that change a session, 20% creations).
 */
const MIXES = {
  read: (c, n) => (n % 2 === 0 ? ['get_mode_info', { mode_slug: SLUGS[n % SLUGS.length] }] : ['list_modes', {}]),
  session: (c, n) => {
    const step = n % 5;
    if (step === 0 || c.session === null) return ['create_task', { mode_slug: 'code', initial_message: `bench ${n}` }];
    if (step % 2 === 1) return ['get_task_info', { session_id: c.session }];
    c.mode = c.mode === 'code' ? 'architect' : 'code';
    return ['switch_mode', { session_id: c.session, new_mode_slug: c.mode }];
  },
};

/** One client: its own keep-alive socket; every call an independent stateless request. */
class Caller {
  constructor(url, mix) { this.raw = new RawClient(url); this.mix = mix; this.n = 0; this.id = 1; this.session = null; this.mode = 'code'; }

  /** One call; resolves with its time in ms, or with an error text (answers are checked, never believed). */
  async call() {
    const [name, args] = MIXES[this.mix](this, this.n++);
    const body = { jsonrpc: '2.0', id: this.id++, method: 'tools/call', params: { name, arguments: args, _meta: META } };
    const t = now();
    const res = await this.raw.post(body, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name });
    const ms = now() - t;
    if (res.status !== 200 || !/^\{"jsonrpc":"2\.0","id":\d+,"result"/.test(res.text)) return { ms, error: `${name}: ${res.status} ${res.text.slice(0, 240)}` };
    if (name === 'create_task') this.session = /"session_id":"(ses_[0-9a-f]+)"/.exec(res.text)?.[1] ?? null;
    return { ms, error: null };
  }
}

/** `CLIENTS` callers splitting `requests` calls; req/s, p99, errors, and what `measure` saw around the timed part. */
async function load(url, mix, requests, measure) {
  const all = Array.from({ length: CLIENTS }, () => new Caller(url, mix));
  try {
    // Warm-up (it also creates each client's session): as many calls as are timed, at least 2,000,
    // because the first thousands of calls pay for V8's compilation (2-3x the CPU of later ones).
    let warm = Math.max(2000, requests);
    await Promise.all(all.map(async (c) => { while (warm-- > 0) await c.call(); }));
    const before = await measure();
    const latencies = [];
    const errors = [];
    let left = requests;
    const t = now();
    await Promise.all(all.map(async (c) => {
      while (left-- > 0) { const r = await c.call(); latencies.push(r.ms); if (r.error) errors.push(r.error); }
    }));
    const elapsed = now() - t;
    const after = await measure();
    return { rps: (latencies.length / elapsed) * 1000, p99: percentile(latencies, 99), errors, before, after };
  } finally { for (const c of all) c.raw.destroy(); }
}

/** Starts a configuration's servers (and proxy), runs one load on it, stops them. */
async function runConfig(name, mix, requests, ctx) {
  const cfg = CONFIGS[name];
  const args = ['serve', '--http', '--port', '0', '--project-root', ctx.project.dir, '--config-dir', ctx.project.configDir];
  if (cfg.sessionsDir) args.push('--sessions-dir', join(ctx.project.dir, `sessions-${ctx.seq++}`));
  if (cfg.redis) args.push('--store', ctx.redis.url);
  const servers = Array.from({ length: cfg.replicas }, () => startServer(process.execPath, [SERVER_MAIN, ...args]));
  let proxy = null;
  try {
    const urls = await Promise.all(servers.map((s) => s.url));
    if (cfg.replicas > 1) proxy = startServer(process.execPath, [PROXY, ...urls]);
    const url = proxy ? await proxy.url : urls[0];
    const measure = async () => ({
      serverMs: servers.reduce((sum, s) => sum + cpuMsOf(s.child.pid), 0),
      proxyMs: proxy ? cpuMsOf(proxy.child.pid) : 0,
      redis: ctx.redis ? await redisCounters(ctx.redis.port) : null,
    });
    const out = await load(url, mix, requests, measure);
    const n = requests;
    const r = out.before.redis === null ? null : { before: out.before.redis, after: out.after.redis };
    return {
      rps: out.rps, p99: out.p99, errors: out.errors,
      serverUs: ((out.after.serverMs - out.before.serverMs) * 1000) / n,
      proxyUs: ((out.after.proxyMs - out.before.proxyMs) * 1000) / n,
      // The second INFO counts the first one: one command of the bench's own per window.
      redisCmds: r ? (r.after.commands - r.before.commands - 1) / n : null,
      redisUs: r ? ((r.after.cpuS - r.before.cpuS) * 1e6) / n : null,
      // Commands a script runs count in INFO too; script calls are round trips of their own.
      redisScripts: r ? ['evalsha', 'eval'].reduce((sum, c) => sum + (r.after.calls[c] ?? 0) - (r.before.calls[c] ?? 0), 0) / n : null,
      calls: r ? diffCalls(r.before.calls, r.after.calls) : null,
    };
  } finally {
    await Promise.all([...servers.map((s) => s.stop()), ...(proxy ? [proxy.stop()] : [])]);
  }
}

function diffCalls(before, after) {
  const out = {};
  for (const [k, v] of Object.entries(after)) { const d = v - (before[k] ?? 0) - (k === 'info' ? 1 : 0); if (d > 0) out[k] = d; }
  return out;
}

const med = (list, key) => median(list.map((o) => o[key]));
const us = (v) => `${v.toFixed(1)} µs`;

/** The rows of one mix from every configuration's rounds. */
function mixRows(mix, out, requests) {
  const rows = [];
  const notes = [];
  const f = (name, key) => med(out[name], key);
  const failed = (name) => out[name].flatMap((o) => o.errors);
  const k = (suffix) => `store_${mix}_${suffix}`;
  const errorText = (name) => {
    const e = failed(name);
    if (e.length === 0) return '';
    const byTool = {};
    for (const text of e) { const tool = text.slice(0, text.indexOf(':')); byTool[tool] = (byTool[tool] ?? 0) + 1; }
    return ` (${e.length} failed calls in all rounds: ${Object.entries(byTool).map(([t, n]) => `${t} ${n}`).join(', ')}; e.g. ${e[0].slice(0, 160)})`;
  };
  for (const name of ['memory', 'redis', 'redis2']) {
    const ratio = f(name, 'rps') / f('file', 'rps');
    rows.push(row(`store, ${mix} mix: req/s at ${CLIENTS} clients, ${CONFIGS[name].label}`, {
      ours: `${Math.round(f(name, 'rps'))}/s${failed(name).length ? `, ${failed(name).length} of ${out[name].length * requests} failed` : ''}`, floor: `${Math.round(f('file', 'rps'))}/s`, ratio, target: 'info',
      pass: failed(name).length > 0 ? false : null,
      keys: { [k(`${name}_rps`)]: Math.round(f(name, 'rps')), [k(`${name}_p99_ms`)]: round(f(name, 'p99'), 2), [k(`${name}_errors`)]: failed(name).length },
    }));
  }
  rows.push(row(`store, ${mix} mix: p99, Redis 1 replica / 2 replicas + proxy`, {
    ours: `${f('redis', 'p99').toFixed(2)} / ${f('redis2', 'p99').toFixed(2)} ms`, floor: `${f('file', 'p99').toFixed(2)} ms`, ratio: f('redis', 'p99') / f('file', 'p99'), target: 'info',
    keys: { [k('file_rps')]: Math.round(f('file', 'rps')), [k('file_p99_ms')]: round(f('file', 'p99'), 2) },
  }));
  const cpuRatio = f('redis', 'serverUs') / f('file', 'serverUs');
  rows.push(row(`store, ${mix} mix: server CPU per request, Redis 1 replica`, {
    ours: us(f('redis', 'serverUs')), floor: us(f('file', 'serverUs')), ratio: cpuRatio, target: `≤ ${CPU_TARGET}×`, pass: cpuRatio <= CPU_TARGET,
    keys: { [k('file_server_us')]: round(f('file', 'serverUs'), 1), [k('redis_server_us')]: round(f('redis', 'serverUs'), 1), [k('cpu_ratio')]: round(cpuRatio, 2) },
  }));
  rows.push(row(`store, ${mix} mix: server CPU per request, 2 replicas (sum)`, {
    ours: us(f('redis2', 'serverUs')), floor: us(f('file', 'serverUs')), ratio: f('redis2', 'serverUs') / f('file', 'serverUs'), target: 'info',
    keys: { [k('redis2_server_us')]: round(f('redis2', 'serverUs'), 1), [k('proxy_us')]: round(f('redis2', 'proxyUs'), 1) },
  }));
  const cmds = f('redis', 'redisCmds');
  const readOnly = mix === 'read';
  rows.push(row(`store, ${mix} mix: Redis commands / CPU per request, 1 replica`, {
    ours: `${cmds.toFixed(2)} cmds (${f('redis', 'redisScripts').toFixed(2)} scripts), ${us(f('redis', 'redisUs'))}`, target: readOnly ? '0 cmds' : 'info',
    // A sweep or a fan-out message may land in a window: less than one command per 100 requests is "none".
    pass: readOnly ? cmds < 0.01 : null,
    keys: { [k('redis_cmds_per_req')]: round(cmds, 3), [k('redis_scripts_per_req')]: round(f('redis', 'redisScripts'), 3), [k('redis_db_us')]: round(f('redis', 'redisUs'), 1), [k('redis2_cmds_per_req')]: round(f('redis2', 'redisCmds'), 3) },
  }));
  const calls = (name) => Object.entries(out[name].at(-1).calls ?? {}).map(([c, v]) => `${c} ${round(v / requests, 2)}`).join(', ') || 'none';
  notes.push(`  store, ${mix} mix (${requests} stateless tools/call per round; the "floor" column is the file store; req/s per round:`);
  for (const name of Object.keys(CONFIGS)) {
    notes.push(`    ${CONFIGS[name].label}: ${out[name].map((o) => Math.round(o.rps)).join(', ')} req/s, server CPU ${out[name].map((o) => o.serverUs.toFixed(1)).join(', ')} µs/req${errorText(name)}`);
  }
  notes.push(`    Redis commands per request (those run inside scripts included), last round: 1 replica ${calls('redis')}; 2 replicas ${calls('redis2')}; proxy CPU ${us(f('redis2', 'proxyUs'))}/req, Redis CPU ${us(f('redis2', 'redisUs'))}/req with 2 replicas`);
  return { rows, notes };
}

export async function store({ rounds, requests }) {
  const binary = redisServerBinary();
  if (binary === null) {
    return { rows: [row('store: Redis vs file store', { ours: 'skipped', target: `≤ ${CPU_TARGET}× CPU`, pass: null, keys: { store_skipped: 1 } })], notes: ['  store: skipped, redis-server is not on PATH (the figure starts its own)'] };
  }
  const redis = await startRedis(binary);
  const project = projectWithModes(10);
  const ctx = { redis, project, seq: 0 };
  try {
    const rows = [];
    const notes = [];
    for (const mix of Object.keys(MIXES)) {
      const out = await alternate(rounds, async (name) => {
        const result = await runConfig(name, mix, requests, ctx);
        await command(redis.port, 'FLUSHALL'); // each run starts from an empty Redis, as from an empty folder
        return result;
      }, Object.keys(CONFIGS));
      const m = mixRows(mix, out, requests);
      rows.push(...m.rows);
      notes.push(...m.notes);
    }
    return { rows, notes };
  } finally {
    await redis.stop();
    project.cleanup();
  }
}
