// Memory: RSS of a ready process, and what one live session costs at 10,000 and 100,000 sessions,
// as RSS growth (/proc) and as live memory (V8 heap plus ArrayBuffers in use after a full GC, printed by a preloaded probe).
import { join } from 'node:path';
import { PROBE, Peer, alternate, kb, mb, median, now, round, row, tempDir } from './lib.mjs';

const BATCH = 1000;
const createLine = () => ({ method: 'tools/call', params: { name: 'create_task', arguments: { mode_slug: 'code', initial_message: 'Investigate the failing build' } } });

/** Creates `count` sessions in pipelined batches; returns the elapsed ms. */
async function createSessions(peer, count) {
  const t0 = now();
  for (let done = 0; done < count; done += BATCH) {
    const out = await peer.pipeline(peer.lines(Math.min(BATCH, count - done), createLine));
    if (out.errors > 0) throw new Error(`${peer.kind}: create_task failed: ${out.firstError}`);
  }
  return now() - t0;
}

/** "Ready": initialize answered and a tools/list answered (our feature modules load after initialize). */
async function ready(peer) {
  await peer.initialize();
  await peer.call('tools/list', {});
}

/**
 * The live heap in bytes: the probe (bench/probe.cjs, preloaded with --expose-gc) runs full GCs
 * and reports the heap still in use plus ArrayBuffer memory (our session table keeps its numbers
 * in typed arrays, outside the V8 heap). The same for every peer, and cheap at any size (a heap
 * snapshot of 100,000 sessions is hundreds of MB to parse).
 */
const liveHeap = async (peer) => (await peer.probe()).liveBytes;

/** One fresh process per round: RSS when ready, then RSS growth and live-heap growth per session. */
async function measure(kind, sessions, args, cwd) {
  const peer = Peer.start(kind, { args: kind === 'ours' ? args : [], cwd, nodeArgs: ['--expose-gc', '--require', PROBE] });
  try {
    await ready(peer);
    const rss0 = peer.rss();
    const heap0 = await liveHeap(peer);
    const base = peer.rss(); // after the probe's GC: growth is measured from here
    const elapsed = await createSessions(peer, sessions);
    const rss1 = peer.rss();
    const heap1 = await liveHeap(peer);
    return { rss0, elapsed, rssPer: (rss1 - base) / sessions, heapPer: (heap1 - heap0) / sessions };
  } finally {
    await peer.stop();
  }
}

export async function memory({ rounds, sizes }) {
  const t = tempDir('memory');
  const args = ['--config-dir', join(t.dir, 'global-config')];
  try {
    const rows = [];
    let createRate = 10_000;
    for (const [i, size] of sizes.entries()) {
      const runs = await alternate(rounds[i], (kind) => measure(kind, size, args, t.dir));
      const pick = (kind, key) => (runs[kind] ? median(runs[kind].map((r) => r[key])) : null);
      const n = size.toLocaleString('en');
      if (i === 0) {
        createRate = size / (pick('ours', 'elapsed') / 1000);
        const [ours, floor, sdk] = ['ours', 'floor', 'sdk'].map((k) => pick(k, 'rss0'));
        rows.push(row('memory: RSS when ready (initialize + tools/list)', {
          ours: mb(ours), floor: mb(floor), ratio: ours / floor, target: '≤ 1.20× floor', pass: ours / floor <= 1.2,
          ...(sdk === null ? {} : { sdk: mb(sdk), sdkRatio: ours / sdk }),
          keys: { rss_ready_mb: round(ours / 2 ** 20, 1), rss_ready_floor_mb: round(floor / 2 ** 20, 1), rss_ready_ratio: round(ours / floor), ...(sdk === null ? {} : { rss_ready_sdk_mb: round(sdk / 2 ** 20, 1) }) },
        }));
      }
      for (const [key, label, keyName] of [['rssPer', 'RSS growth', 'rss'], ['heapPer', 'live heap', 'heap']]) {
        const [ours, floor, sdk] = ['ours', 'floor', 'sdk'].map((k) => pick(k, key));
        rows.push(row(`memory: ${label} per session (0 → ${n} create_task)`, {
          ours: kb(ours), floor: `${kb(floor)}/req`, target: '≤ 1.5 KB', pass: ours <= 1536,
          ...(sdk === null ? {} : { sdk: kb(sdk), sdkRatio: ours / sdk, sdkTarget: '≤ 0.30× SDK', sdkPass: ours / sdk <= 0.3 }),
          keys: {
            [`session_${keyName}_${size}_bytes`]: Math.round(ours), [`session_${keyName}_${size}_floor_bytes`]: Math.round(floor),
            ...(sdk === null ? {} : { [`session_${keyName}_${size}_sdk_bytes`]: Math.round(sdk), [`session_${keyName}_${size}_sdk_ratio`]: round(ours / sdk) }),
          },
        }));
      }
    }
    return { createRate, rows };
  } finally {
    t.cleanup();
  }
}
