// Cold start: wall time from spawn to the initialize answer, ours against the floor, alternating;
// then, in processes of their own, the CPU each used up to its first answer (bench/cpu-at-answer.cjs).
// Each round is a fresh process; nothing is cached between rounds but the OS file cache.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Peer, alternate, kinds, median, ms, now, round, row, tempDir } from './lib.mjs';

const CPU_PROBE = fileURLToPath(new URL('./cpu-at-answer.cjs', import.meta.url));
const CPU_LINE = /bench-cpu-at-answer ([\d.]+)\n/;

/** The CPU ms a peer reports on stderr at its first answer (it may arrive just after the answer). */
function cpuAtAnswer(peer) {
  return new Promise((resolve, reject) => {
    const stderr = peer.child.stderr;
    const done = (value, err) => { clearTimeout(timer); stderr.off('data', look); if (err) reject(err); else resolve(value); };
    const look = () => { const m = CPU_LINE.exec(peer.stderrTail); if (m) done(Number(m[1])); };
    const timer = setTimeout(() => done(null, new Error(`${peer.kind}: no bench-cpu-at-answer line`)), 10_000);
    stderr.on('data', look);
    look();
  });
}

export async function startup({ rounds }) {
  const t = tempDir('startup');
  try {
    const args = ['--config-dir', join(t.dir, 'global-config')];
    const once = async (kind) => {
      const t0 = now();
      const peer = Peer.start(kind, { args, cwd: t.dir });
      await peer.initialize();
      const elapsed = now() - t0;
      await peer.stop();
      return elapsed;
    };
    for (const kind of kinds()) await once(kind); // warm the OS file cache for every script before anything counts
    const runs = await alternate(rounds, once);
    const cpuOnce = async (kind) => {
      const peer = Peer.start(kind, { args, cwd: t.dir, nodeArgs: ['--require', CPU_PROBE] });
      await peer.initialize();
      const used = await cpuAtAnswer(peer);
      await peer.stop();
      return used;
    };
    const cpu = await alternate(rounds, cpuOnce);
    const cpuOurs = median(cpu.ours);
    const cpuFloor = median(cpu.floor);
    const cpuSdk = cpu.sdk ? median(cpu.sdk) : null;
    const ours = median(runs.ours);
    const floor = median(runs.floor);
    const ratio = ours / floor;
    const sdk = runs.sdk ? median(runs.sdk) : null;
    return [row('cold start (spawn → initialize)', {
      ours: ms(ours), floor: ms(floor), ratio, target: '≤ 1.20× floor', pass: ratio <= 1.2,
      ...(sdk === null ? {} : { sdk: ms(sdk), sdkRatio: ours / sdk }),
      keys: { startup_ms: round(ours, 1), startup_floor_ms: round(floor, 1), startup_ratio: round(ratio), ...(sdk === null ? {} : { startup_sdk_ms: round(sdk, 1), startup_sdk_ratio: round(ours / sdk) }) },
    }), row('cold start: CPU used up to the initialize answer', {
      ours: ms(cpuOurs), floor: ms(cpuFloor), ratio: cpuOurs / cpuFloor, target: '≤ 1.20× floor', pass: cpuOurs / cpuFloor <= 1.2,
      ...(cpuSdk === null ? {} : { sdk: ms(cpuSdk), sdkRatio: cpuOurs / cpuSdk }),
      keys: { startup_cpu_ms: round(cpuOurs, 1), startup_cpu_floor_ms: round(cpuFloor, 1), startup_cpu_ratio: round(cpuOurs / cpuFloor), ...(cpuSdk === null ? {} : { startup_cpu_sdk_ms: round(cpuSdk, 1) }) },
    })];
  } finally {
    t.cleanup();
  }
}
