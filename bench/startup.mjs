// Cold start: wall time from spawn to the initialize answer, ours against the floor, alternating.
// Each round is a fresh process; nothing is cached between rounds but the OS file cache.
import { join } from 'node:path';
import { Peer, alternate, kinds, median, ms, now, round, row, tempDir } from './lib.mjs';

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
    const ours = median(runs.ours);
    const floor = median(runs.floor);
    const ratio = ours / floor;
    const sdk = runs.sdk ? median(runs.sdk) : null;
    return [row('cold start (spawn → initialize)', {
      ours: ms(ours), floor: ms(floor), ratio, target: '≤ 1.30× floor', pass: ratio <= 1.3,
      ...(sdk === null ? {} : { sdk: ms(sdk), sdkRatio: ours / sdk }),
      keys: { startup_ms: round(ours, 1), startup_floor_ms: round(floor, 1), startup_ratio: round(ratio), ...(sdk === null ? {} : { startup_sdk_ms: round(sdk, 1), startup_sdk_ratio: round(ours / sdk) }) },
    })];
  } finally {
    t.cleanup();
  }
}
