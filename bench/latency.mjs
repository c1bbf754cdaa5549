// Latency: sequential get_mode_info calls (the next is sent when the answer arrived), round trip
// per call; p50 and p99 per round, median over rounds, ours against the floor and the SDK peer,
// alternating. A preloaded probe (bench/probe.cjs) reports, per round, what happened inside each
// server: GC pauses and event-loop delay, to tell a tail made by the server from one made by the
// scheduler of a loaded machine.
import { join } from 'node:path';
import { PROBE, Peer, alternate, kinds, median, now, percentile, round, row, tempDir } from './lib.mjs';

const SLUGS = ['code', 'architect', 'ask', 'debug', 'orchestrator'];

export async function latency({ rounds, calls }) {
  const t = tempDir('latency');
  const args = ['--config-dir', join(t.dir, 'global-config')];
  const peers = Object.fromEntries(kinds().map((k) => [k, Peer.start(k, { args: k === 'ours' ? args : [], cwd: t.dir, nodeArgs: ['--require', PROBE], env: { BENCH_PROBE_LOOP: '1' } })]));
  try {
    await Promise.all(Object.values(peers).map((p) => p.initialize()));
    const series = async (kind, count) => {
      const peer = peers[kind];
      const times = new Array(count);
      for (let i = 0; i < count; i++) {
        const t0 = now();
        const line = await peer.request('tools/call', { name: 'get_mode_info', arguments: { mode_slug: SLUGS[i % SLUGS.length] } });
        times[i] = now() - t0;
        if (line.includes('"error":{')) throw new Error(`${kind}: get_mode_info failed: ${line.slice(0, 300)}; stderr: ${peer.stderrTail.slice(-800)}`);
      }
      return { p50: percentile(times, 50), p99: percentile(times, 99), inside: await peer.probe() };
    };
    for (const kind of kinds()) await series(kind, Math.min(calls, 500)); // JIT warm-up (and the probe's counters reset)
    const runs = await alternate(rounds, (kind) => series(kind, calls));
    const pick = (kind, key) => median(runs[kind].map((r) => r[key]));
    const us = (v) => `${Math.round(v * 1000)} µs`;
    const out = [];
    // The target against the SDK peer is on the tail: never slower than the SDK at p99.
    for (const [key, limit, sdkLimit] of [['p50', 1.5, null], ['p99', 2, 1]]) {
      const ours = pick('ours', key);
      const floor = pick('floor', key);
      const ratio = ours / floor;
      const sdk = peers.sdk ? pick('sdk', key) : null;
      const vsSdk = sdk === null ? {} : {
        sdk: us(sdk), sdkRatio: ours / sdk,
        ...(sdkLimit === null ? {} : { sdkTarget: `≤ ${sdkLimit.toFixed(2)}× SDK`, sdkPass: ours / sdk <= sdkLimit }),
      };
      out.push(row(`latency ${key} (${calls.toLocaleString('en')} sequential get_mode_info)`, {
        ours: us(ours), floor: us(floor), ratio, target: `≤ ${limit.toFixed(2)}× floor`, pass: ratio <= limit, ...vsSdk,
        keys: {
          [`latency_${key}_us`]: Math.round(ours * 1000), [`latency_${key}_floor_us`]: Math.round(floor * 1000), [`latency_${key}_ratio`]: round(ratio),
          ...(sdk === null ? {} : { [`latency_${key}_sdk_us`]: Math.round(sdk * 1000), [`latency_${key}_sdk_ratio`]: round(ours / sdk) }),
        },
      }));
    }
    // Inside each server, per round of `calls`: GCs (count, longest pause) and event-loop delay p99.
    const inside = (kind) => {
      const rs = runs[kind].map((r) => r.inside);
      return {
        gcs: median(rs.map((r) => r.gc.count)), gcMax: median(rs.map((r) => r.gc.maxMs)),
        loopP99: median(rs.map((r) => r.loopMs.p99)), loopMax: median(rs.map((r) => r.loopMs.max)),
      };
    };
    const show = (v) => `${v.gcs} GCs (longest ${v.gcMax.toFixed(2)} ms); loop delay p99 ${v.loopP99.toFixed(2)} ms, max ${v.loopMax.toFixed(2)} ms`;
    const ours = inside('ours');
    const sdk = peers.sdk ? inside('sdk') : null;
    out.push(row('latency: inside the server per round (GC, event-loop delay)', {
      ours: show(ours), floor: show(inside('floor')), ...(sdk === null ? {} : { sdk: show(sdk) }),
      keys: {
        latency_gcs: ours.gcs, latency_gc_max_ms: round(ours.gcMax, 2), latency_loop_p99_ms: round(ours.loopP99, 2),
        ...(sdk === null ? {} : { latency_sdk_gcs: sdk.gcs, latency_sdk_gc_max_ms: round(sdk.gcMax, 2), latency_sdk_loop_p99_ms: round(sdk.loopP99, 2) }),
      },
    }));
    return out;
  } finally {
    await Promise.all(Object.values(peers).map((p) => p.stop()));
    t.cleanup();
  }
}
