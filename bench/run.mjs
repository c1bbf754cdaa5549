// The bench driver: runs every figure against the floor and, when installed, the SDK peer (the same
// API on the official SDK) in one alternating run and prints one table and one key=value line. Never part of `npm test`; it measures dist/ as built (`npm run bench` builds first).
// Usage: node bench/run.mjs [--quick] [--only=startup,throughput,…] [--cpu-prof=DIR]
// (--cpu-prof runs our server under `node --cpu-prof`; read the profiles with bench/profile-summary.mjs)
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { SERVER_MAIN, now, peerCommand, printTable, verdict } from './lib.mjs';
import { answers } from './answers.mjs';
import { startup } from './startup.mjs';
import { throughput } from './throughput.mjs';
import { latency } from './latency.mjs';
import { memory } from './memory.mjs';
import { scale } from './scale.mjs';
import { modeFiles } from './modefiles.mjs';
import { permissions } from './permissions.mjs';
import { expiry, sweepSlices } from './expiry.mjs';
import { eras } from './eras.mjs';
import { http } from './http.mjs';
import { httpBounds } from './http-bounds.mjs';
import { hook } from './hook.mjs';
import { hookStart } from './hook-start.mjs';
import { hookHttp } from './hook-http.mjs';
import { decision } from './decision.mjs';
import { plugin } from './plugin.mjs';
import { store } from './store.mjs';
import { FLOOD_PLANS, sessionFlood } from './session-flood.mjs';

/** Round counts and sizes: full is what the figures are quoted from; quick is for trying the scripts. */
const PLANS = {
  full: {
    startup: { rounds: 7 },
    throughput: { rounds: 5, requests: 20_000 },
    latency: { rounds: 5, calls: 2_000 },
    memory: { rounds: [5, 2], sizes: [10_000, 100_000] },
    scale: { rounds: 5, sizes: [10, 100, 1_000, 5_000] },
    modefiles: { rounds: 5, sizes: [10, 100, 1_000] },
    permissions: { rounds: 7, ops: 200_000 },
    expiry: { sessions: 100_000, sweepRounds: 3 },
    eras: { rounds: 5, requests: 5_000 },
    http: { rounds: 4, requests: 5_000 },
    httpbounds: { calls: 500 },
    hook: { rounds: 15 },
    hookstart: { rounds: 21 },
    hookhttp: { rounds: 6, requests: 20_000 },
    decision: { rounds: 7, calls: 20_000 },
    plugin: { rounds: 5, calls: 20_000 },
    store: { rounds: 4, requests: 5_000 },
    flood: FLOOD_PLANS.full,
    answers: {},
  },
  quick: {
    startup: { rounds: 3 },
    throughput: { rounds: 2, requests: 4_000 },
    latency: { rounds: 2, calls: 500 },
    memory: { rounds: [2, 1], sizes: [2_000, 20_000] },
    scale: { rounds: 2, sizes: [10, 100, 1_000] },
    modefiles: { rounds: 2, sizes: [10, 100, 1_000] },
    permissions: { rounds: 3, ops: 50_000 },
    expiry: { sessions: 10_000, sweepRounds: 1 },
    eras: { rounds: 2, requests: 1_000 },
    http: { rounds: 2, requests: 1_000 },
    httpbounds: { calls: 200 },
    hook: { rounds: 5 },
    hookstart: { rounds: 5 },
    hookhttp: { rounds: 2, requests: 5_000 },
    decision: { rounds: 3, calls: 5_000 },
    plugin: { rounds: 2, calls: 5_000 },
    store: { rounds: 2, requests: 1_000 },
    flood: FLOOD_PLANS.quick,
    answers: {},
  },
};
const FIGURES = Object.keys(PLANS.full);

function parseArgs(argv) {
  const opts = { quick: false, only: FIGURES, cpuProf: null };
  for (const arg of argv) {
    if (arg === '--quick') opts.quick = true;
    else if (arg.startsWith('--cpu-prof=')) opts.cpuProf = resolve(arg.slice('--cpu-prof='.length));
    else if (arg.startsWith('--only=')) {
      opts.only = arg.slice('--only='.length).split(',').filter(Boolean);
      const unknown = opts.only.filter((f) => !FIGURES.includes(f));
      if (unknown.length > 0) throw new Error(`unknown figure(s) ${unknown.join(', ')}; known: ${FIGURES.join(', ')}`);
    } else if (arg === '-h' || arg === '--help') {
      process.stdout.write(`usage: node bench/run.mjs [--quick] [--only=${FIGURES.join(',')}] [--cpu-prof=DIR]\n`);
      process.exit(0);
    } else throw new Error(`unknown argument ${arg}`);
  }
  return opts;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!existsSync(SERVER_MAIN)) throw new Error(`${SERVER_MAIN} is missing: run \`npm run build\` first (or \`npm run bench\`)`);
  const plan = opts.quick ? PLANS.quick : PLANS.full;
  if (opts.cpuProf !== null) process.env.BENCH_SERVER_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${opts.cpuProf}`;
  const load = () => loadavg().map((v) => v.toFixed(2)).join(' ');
  process.stderr.write(`bench: ${opts.quick ? 'quick' : 'full'} run, node ${process.version}, ${cpus().length} cores, load ${load()}\n`);
  const peer = peerCommand();
  process.stderr.write(peer === null
    ? `bench: SDK peer skipped (${peerCommand.why})\n`
    : `bench: SDK peer: ${peer.join(' ')}\n`);
  const rows = [];
  const notes = [];
  const shared = { createRate: 10_000 };
  const steps = {
    startup: async () => rows.push(...await startup(plan.startup)),
    throughput: async () => rows.push(...await throughput(plan.throughput)),
    latency: async () => rows.push(...await latency(plan.latency)),
    memory: async () => {
      const out = await memory(plan.memory);
      shared.createRate = out.createRate; // sizes the expiry run's sweep interval
      rows.push(...out.rows);
    },
    scale: async () => { const out = await scale(plan.scale); rows.push(...out.rows); notes.push(...out.notes); },
    modefiles: async () => { const out = await modeFiles(plan.modefiles); rows.push(...out.rows); notes.push(...out.notes); },
    permissions: async () => rows.push(...await permissions(plan.permissions)),
    answers: async () => rows.push(...await answers()),
    eras: async () => { const out = await eras(plan.eras); rows.push(...out.rows); notes.push(...out.notes); },
    http: async () => { const out = await http(plan.http); rows.push(...out.rows); notes.push(...out.notes); },
    httpbounds: async () => { const out = await httpBounds(plan.httpbounds); rows.push(...out.rows); notes.push(...out.notes); },
    hook: async () => rows.push(...await hook(plan.hook)),
    hookstart: async () => rows.push(...await hookStart(plan.hookstart)),
    hookhttp: async () => rows.push(...await hookHttp(plan.hookhttp)),
    decision: async () => rows.push(...await decision(plan.decision)),
    plugin: async () => rows.push(...await plugin(plan.plugin)),
    store: async () => { const out = await store(plan.store); rows.push(...out.rows); notes.push(...out.notes); },
    flood: async () => { const out = await sessionFlood(plan.flood); rows.push(...out.rows); notes.push(...out.notes); },
    expiry: async () => {
      const out = await expiry({ sessions: plan.expiry.sessions, createRate: shared.createRate });
      const inProcess = await sweepSlices({ sessions: plan.expiry.sessions, rounds: plan.expiry.sweepRounds });
      rows.push(...out.rows, ...inProcess.rows);
      notes.push(...out.notes, ...inProcess.notes);
    },
  };
  const t0 = now();
  for (const figure of FIGURES) {
    if (!opts.only.includes(figure)) continue;
    const t = now();
    process.stderr.write(`bench: ${figure}…`);
    try {
      await steps[figure]();
    } catch (err) {
      // One broken figure must not hide the others: it shows as a failed row with the reason.
      process.stderr.write(` failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      rows.push({ figure, ours: 'error (see stderr)', floor: '—', ratio: null, target: '—', pass: false, keys: { [`${figure}_error`]: 1 } });
    }
    process.stderr.write(` ${((now() - t) / 1000).toFixed(1)} s\n`);
  }
  process.stderr.write(`bench: done in ${((now() - t0) / 1000).toFixed(1)} s, load ${load()}\n`);
  printTable(rows);
  if (notes.length > 0) process.stdout.write(`\ndetails:\n${notes.join('\n')}\n`);
  const judged = rows.filter((r) => verdict(r) !== null);
  const passed = judged.filter((r) => verdict(r)).length;
  const keys = { mode: opts.quick ? 'quick' : 'full', targets_met: `${passed}/${judged.length}` };
  for (const r of rows) Object.assign(keys, r.keys);
  process.stdout.write(`\n${Object.entries(keys).map(([k, v]) => `${k}=${v}`).join(' ')}\n`);
}

main().catch((err) => {
  process.stderr.write(`\nbench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
