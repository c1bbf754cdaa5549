// Cold start: wall time from spawn to the initialize answer, ours against the floor, alternating.
// Each round is a fresh process; nothing is cached between rounds but the OS file cache.
import { join } from 'node:path';
import { Peer, alternate, median, ms, now, round, row, tempDir } from './lib.mjs';

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
    await once('floor'); // warm the OS file cache for both scripts before anything counts
    await once('ours');
    const runs = await alternate(rounds, once);
    const ours = median(runs.ours);
    const floor = median(runs.floor);
    const ratio = ours / floor;
    return [row('cold start (spawn → initialize)', {
      ours: ms(ours), floor: ms(floor), ratio, target: '≤ 1.30× floor', pass: ratio <= 1.3,
      keys: { startup_ms: round(ours, 1), startup_floor_ms: round(floor, 1), startup_ratio: round(ratio) },
    })];
  } finally {
    t.cleanup();
  }
}
