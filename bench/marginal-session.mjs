// Live memory per session past the first create_task, for ours and the SDK peer: the memory
// figure's live-heap row counts from "ready", so it includes what a server loads on its first
// tool call (ours loads its services then; the SDK peer before it is ready). Not part of run.mjs.
// Usage: node bench/marginal-session.mjs [sessions=10000]
import { join } from 'node:path';
import { PROBE, Peer, kinds, tempDir } from './lib.mjs';

const sessions = Number(process.argv[2] ?? 10_000);
const line = () => ({ method: 'tools/call', params: { name: 'create_task', arguments: { mode_slug: 'code', initial_message: 'Investigate the failing build' } } });

for (const kind of kinds().filter((k) => k !== 'floor')) {
  const t = tempDir('marginal');
  const peer = Peer.start(kind, { args: kind === 'ours' ? ['--config-dir', join(t.dir, 'global-config')] : [], cwd: t.dir, nodeArgs: ['--expose-gc', '--require', PROBE] });
  try {
    await peer.initialize();
    await peer.call('tools/list', {});
    const live = async () => (await peer.probe()).liveBytes;
    const ready = await live();
    await peer.pipeline(peer.lines(1, line));
    const first = await live();
    for (let done = 1; done < sessions; done += 1000) await peer.pipeline(peer.lines(Math.min(1000, sessions - done), line));
    const all = await live();
    process.stdout.write(`${kind}: live memory when ready ${(ready / 2 ** 20).toFixed(2)} MB; the first create_task +${Math.round((first - ready) / 1024)} KB; ` +
      `then ${Math.round((all - first) / (sessions - 1))} B per session (${sessions.toLocaleString('en')} sessions)\n`);
  } finally {
    await peer.stop();
    t.cleanup();
  }
}
