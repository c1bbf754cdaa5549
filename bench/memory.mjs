// Memory: RSS of a ready process, and what one live session costs: the RSS delta between 0 and
// 10,000 sessions (from /proc), and the live-heap delta from V8 heap snapshots taken by signal.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Peer, alternate, kb, mb, median, now, round, row, tempDir } from './lib.mjs';

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
 * The live heap in bytes: V8 writes a snapshot on SIGUSR2 (node --heapsnapshot-signal), after a
 * full GC, so the sum of the nodes' self sizes is exactly what is still reachable. The snapshot is
 * written on the main thread; a ping answered after the file appeared means the writing ended.
 */
async function liveHeap(peer, dir) {
  const before = new Set(readdirSync(dir));
  process.kill(peer.pid, 'SIGUSR2');
  let file;
  for (const deadline = now() + 30_000; file === undefined; await sleep(5)) {
    if (now() > deadline) throw new Error('no heap snapshot appeared within 30 s');
    file = readdirSync(dir).find((n) => n.endsWith('.heapsnapshot') && !before.has(n));
  }
  await peer.call('ping', {});
  const snap = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  rmSync(join(dir, file));
  const fields = snap.snapshot.meta.node_fields;
  const stride = fields.length;
  let total = 0;
  for (let i = fields.indexOf('self_size'); i < snap.nodes.length; i += stride) total += snap.nodes[i];
  return total;
}

export async function memory({ rounds, heapRounds, sessions }) {
  const t = tempDir('memory');
  const args = ['--config-dir', join(t.dir, 'global-config')];
  const creationMs = [];
  try {
    const runs = await alternate(rounds, async (kind) => {
      const peer = Peer.start(kind, { args, cwd: t.dir });
      try {
        await ready(peer);
        const rss0 = peer.rss();
        const elapsed = await createSessions(peer, sessions);
        if (kind === 'ours') creationMs.push(elapsed);
        return { rss0, perSession: (peer.rss() - rss0) / sessions };
      } finally {
        await peer.stop();
      }
    });
    const heapRuns = [];
    for (let r = 0; r < heapRounds; r++) {
      const peer = Peer.start('ours', { args, cwd: t.dir, nodeArgs: ['--heapsnapshot-signal=SIGUSR2'] });
      try {
        await ready(peer);
        const heap0 = await liveHeap(peer, t.dir);
        await createSessions(peer, sessions);
        heapRuns.push((await liveHeap(peer, t.dir) - heap0) / sessions);
      } finally {
        await peer.stop();
      }
    }
    const rssOurs = median(runs.ours.map((r) => r.rss0));
    const rssFloor = median(runs.floor.map((r) => r.rss0));
    const perOurs = median(runs.ours.map((r) => r.perSession));
    const perFloor = median(runs.floor.map((r) => r.perSession));
    const heapPer = median(heapRuns);
    const createRate = sessions / (median(creationMs) / 1000);
    const n = sessions.toLocaleString('en');
    return {
      createRate,
      rows: [
        row('memory: RSS when ready (initialize + tools/list)', {
          ours: mb(rssOurs), floor: mb(rssFloor), ratio: rssOurs / rssFloor, target: '≤ 1.20× floor', pass: rssOurs / rssFloor <= 1.2,
          keys: { rss_ready_mb: round(rssOurs / 2 ** 20, 1), rss_ready_floor_mb: round(rssFloor / 2 ** 20, 1), rss_ready_ratio: round(rssOurs / rssFloor) },
        }),
        row(`memory: RSS delta per session (0 → ${n} create_task)`, {
          ours: kb(perOurs), floor: `${kb(perFloor)}/req`, target: '≤ 1.5 KB', pass: perOurs <= 1536,
          keys: { session_rss_bytes: Math.round(perOurs), session_rss_floor_bytes: Math.round(perFloor) },
        }),
        row(`memory: live heap per session (heap snapshots, 0 → ${n})`, {
          ours: kb(heapPer), target: '≤ 1.5 KB', pass: heapPer <= 1536,
          keys: { session_heap_bytes: Math.round(heapPer) },
        }),
      ],
    };
  } finally {
    t.cleanup();
  }
}
