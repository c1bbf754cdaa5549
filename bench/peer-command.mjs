// Where the SDK peer comes from (BENCH_PEER_CMD, or ../shared/bench-peer/run.sh, which installs it
// outside the project) and which kinds of peer a figure alternates. Never installs into the project.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PEER_SCRIPT = fileURLToPath(new URL('../../shared/bench-peer/run.sh', import.meta.url));

/**
 * The command of the SDK peer (the same API written with the official SDK), as words, or null
 * when there is none: BENCH_PEER_CMD wins; otherwise ../shared/bench-peer/run.sh installs it
 * outside the project (npm, first time only) and prints the command. Never a project dependency.
 */
export function peerCommand() {
  if (peerCommand.cached !== undefined) return peerCommand.cached;
  let cmd = process.env.BENCH_PEER_CMD ?? null;
  peerCommand.why = cmd === null ? 'no ../shared/bench-peer/run.sh and no BENCH_PEER_CMD' : 'BENCH_PEER_CMD is empty';
  if (cmd === null && existsSync(PEER_SCRIPT)) {
    try {
      cmd = execFileSync(PEER_SCRIPT, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim().split('\n').pop() ?? null;
    } catch (err) {
      // An install that fails (offline, say) must not cost the other figures: the peer is skipped.
      peerCommand.why = `${PEER_SCRIPT} failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`;
    }
  }
  peerCommand.cached = cmd === null || cmd.trim() === '' ? null : cmd.trim().split(/\s+/);
  return peerCommand.cached;
}

/** The kinds a figure alternates: the floor, ours and, when installed, the SDK peer. */
export function kinds() {
  return peerCommand() === null ? ['floor', 'ours'] : ['floor', 'ours', 'sdk'];
}
