// Sessions flooded into a shared store (issue 35): one client sends `initialize` twice as often as
// store.max_mcp_sessions allows, then create_task twice past store.max_task_sessions, through a
// round-robin proxy in front of two replicas on one Redis; records in Redis, Redis's memory and each
// replica's RSS are printed before and after, side by side, with how many requests were accepted.
//
// Records are counted in Redis itself (KEYS over the prefix, outside the server's hot path), not read
// off the server's index, so the figure holds the server to what Redis really keeps. The caps are the
// defaults unless the plan lowers them (quick runs), and the output says which were used.
// Run alone: node bench/session-flood.mjs [--quick]; BENCH_SERVER_MAIN=… measures another build.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_MAIN, mb, projectWithModes, rssOf, row } from './lib.mjs';
import { RawClient, startServer } from './http.mjs';
import { command, redisServerBinary, startRedis } from './redis-instance.mjs';

const PROXY = fileURLToPath(new URL('./rr-proxy.mjs', import.meta.url));
/** Sockets the flooding client uses at once. */
const SOCKETS = 16;
const PREFIX = 'rms-flood:';
/** The initialize flood comes in this many waves, this far apart (see below). */
const WAVES = 4;
const WAVE_PAUSE_MS = 1500;
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'flood', version: '1' } };
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'flood', version: '1' } } };
const CREATE = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_task', arguments: { mode_slug: 'code' }, _meta: META } };
const CREATE_HEADERS = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'create_task' };

/** Redis's own count of keys matching `pattern`, and its used memory in bytes. */
async function redisFigures(port) {
  const count = async (pattern) => Number(await command(port, `EVAL "return #redis.call('KEYS', ARGV[1])" 0 ${pattern}`));
  const info = await command(port, 'INFO memory');
  return { mcp: await count(`${PREFIX}mcp:{*`), tasks: await count(`${PREFIX}sess:*`), memory: Number(/^used_memory:(\d+)/m.exec(info)[1]) };
}

/** `total` requests of `body` from SOCKETS sockets; how many got each HTTP status (and whether a 200 carried an error). */
async function flood(url, total, body, headers) {
  const clients = Array.from({ length: SOCKETS }, () => new RawClient(url));
  const statuses = {};
  let left = total;
  const t = performance.now();
  try {
    await Promise.all(clients.map(async (c) => {
      while (left-- > 0) {
        const res = await c.post(body, headers);
        const key = res.status === 200 && res.text.includes('"error"') ? '200 error' : String(res.status);
        statuses[key] = (statuses[key] ?? 0) + 1;
      }
    }));
  } finally { for (const c of clients) c.destroy(); }
  return { statuses, seconds: (performance.now() - t) / 1000 };
}

/** The floods of a full run (the default caps) and of a quick one (lower caps, said in the row names). */
export const FLOOD_PLANS = { full: { mcpCap: 1024, taskCap: 10_000, factor: 2 }, quick: { mcpCap: 256, taskCap: 500, factor: 2 } };

const shown = (statuses) => Object.entries(statuses).sort().map(([s, n]) => `${n}× ${s}`).join(', ');

export async function sessionFlood({ mcpCap, taskCap, factor }) {
  const binary = redisServerBinary();
  if (binary === null) return { rows: [row('flood: sessions in the store', { ours: 'skipped', keys: { flood_skipped: 1 } })], notes: ['  flood: skipped, redis-server is not on PATH'] };
  const redis = await startRedis(binary);
  const project = projectWithModes(10);
  const config = join(project.dir, 'flood-config.json');
  writeFileSync(config, JSON.stringify({ store: { url: redis.url, prefix: PREFIX, max_mcp_sessions: mcpCap, max_task_sessions: taskCap } }));
  const args = ['serve', '--http', '--port', '0', '--config', config, '--project-root', project.dir, '--config-dir', project.configDir];
  const servers = [0, 1].map(() => startServer(process.execPath, [SERVER_MAIN, ...args]));
  let proxy = null;
  try {
    const urls = await Promise.all(servers.map((s) => s.url));
    proxy = startServer(process.execPath, [PROXY, ...urls]);
    const url = await proxy.url;
    // A first session and task through each replica, so "before" is a server that has served.
    for (let i = 0; i < 2; i++) { await flood(url, 1, INIT, {}); await flood(url, 1, CREATE, CREATE_HEADERS); }
    const figures = async () => ({ ...await redisFigures(redis.port), rss: servers.map((s) => rssOf(s.child.pid)) });
    const before = await figures();
    // In waves with a pause longer than a second between them: a replica at its own cap closes its
    // copies of sessions idle for a second, so only the deployment's cap can hold a flood that lasts.
    const inits = { statuses: {}, seconds: 0 };
    for (let wave = 0; wave < WAVES; wave++) {
      if (wave > 0) await new Promise((resolve) => setTimeout(resolve, WAVE_PAUSE_MS));
      const out = await flood(url, (factor * mcpCap) / WAVES, INIT, {});
      inits.seconds += out.seconds;
      for (const [k, n] of Object.entries(out.statuses)) inits.statuses[k] = (inits.statuses[k] ?? 0) + n;
    }
    const middle = await figures();
    const creates = await flood(url, factor * taskCap, CREATE, CREATE_HEADERS);
    const after = await figures();
    const rows = [
      row(`flood: MCP session records in Redis, ${factor * mcpCap} initialize (cap ${mcpCap})`, {
        ours: `${before.mcp} → ${after.mcp}`, target: `≤ ${mcpCap}`, pass: after.mcp <= mcpCap,
        keys: { flood_mcp_before: before.mcp, flood_mcp_after: after.mcp, flood_mcp_cap: mcpCap },
      }),
      row(`flood: task sessions in Redis, ${factor * taskCap} create_task (cap ${taskCap})`, {
        ours: `${before.tasks} → ${after.tasks}`, target: `≤ ${taskCap}`, pass: after.tasks <= taskCap,
        keys: { flood_tasks_before: before.tasks, flood_tasks_after: after.tasks, flood_tasks_cap: taskCap },
      }),
      row('flood: Redis used_memory, before → after initialize → after create_task', {
        ours: `${mb(before.memory)} → ${mb(middle.memory)} → ${mb(after.memory)}`, target: 'info',
        keys: { flood_redis_mb_before: Number((before.memory / 2 ** 20).toFixed(1)), flood_redis_mb_after: Number((after.memory / 2 ** 20).toFixed(1)) },
      }),
      ...servers.map((_, i) => row(`flood: replica ${i} RSS, before → after initialize → after create_task`, {
        ours: `${mb(before.rss[i])} → ${mb(middle.rss[i])} → ${mb(after.rss[i])}`, target: 'info',
        keys: Object.fromEntries([['before', before], ['init', middle], ['after', after]].map(([k, f]) => [`flood_rss${i}_mb_${k}`, Number((f.rss[i] / 2 ** 20).toFixed(1))])),
      })),
    ];
    const notes = [
      `  flood (${SOCKETS} sockets of one client, round robin over 2 replicas; Redis AOF everysec):`,
      `    initialize ×${factor * mcpCap} in ${WAVES} waves ${WAVE_PAUSE_MS} ms apart: ${shown(inits.statuses)} in ${inits.seconds.toFixed(1)} s of flooding`,
      `    create_task ×${factor * taskCap}: ${shown(creates.statuses)} in ${creates.seconds.toFixed(1)} s`,
    ];
    return { rows, notes };
  } finally {
    await Promise.all([...servers.map((s) => s.stop()), ...(proxy ? [proxy.stop()] : [])]);
    await redis.stop();
    project.cleanup();
  }
}

// Run alone: prints the rows as a table.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const quick = process.argv.includes('--quick');
  const { printTable } = await import('./lib.mjs');
  const out = await sessionFlood(FLOOD_PLANS[quick ? 'quick' : 'full']);
  printTable(out.rows);
  process.stdout.write(`\n${out.notes.join('\n')}\n`);
}
