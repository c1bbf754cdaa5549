// Hook start-up: wall time from spawn to exit of `hook claude-code` answering one PreToolUse event,
// beside `node -e 0` (Node's own start), alternating. The hook runs before every tool call it guards.
// The HTTP endpoint's figures are bench/hook-http.mjs's.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { SERVER_MAIN, alternate, median, ms, now, projectWithModes, round, row, tempDir } from './lib.mjs';

/** One run: spawn, write the event, wait for exit; returns milliseconds (throws on a wrong answer). */
function once(args, input, expectDeny) {
  return new Promise((resolve, reject) => {
    const t0 = now();
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c) => { out += c; });
    child.on('error', reject);
    child.on('close', (code) => {
      const elapsed = now() - t0;
      if (code !== 0) return reject(new Error(`${args.join(' ')} exited ${code}`));
      if (expectDeny !== null && out.includes('"deny"') !== expectDeny) return reject(new Error(`unexpected answer: ${out}`));
      resolve(elapsed);
    });
    child.stdin.on('error', () => { /* node -e 0 may exit before reading */ });
    child.stdin.end(input);
  });
}

/** Issue 23: the command hook starts within 1.3× Node's own start (the HTTP endpoint: bench/hook-http.mjs). */
const START_TARGET = 1.3;

export async function hook({ rounds }) {
  const plain = tempDir('hook');
  const withModes = projectWithModes(100);
  try {
    const rows = [];
    // The second row asks a built-in the file does not define (the file is scanned, not parsed); the
    // third asks one of the file's own modes (gen-00050 has no edit group), so the file is parsed in full.
    for (const [label, dir, key, slug] of [
      ['built-in modes only', plain.dir, 'hook', 'architect'],
      ['a .roomodes of 100 modes', withModes.dir, 'hook_roomodes', 'architect'],
      ['a .roomodes of 100 modes, asking one of them', withModes.dir, 'hook_roomodes_own', 'gen-00050'],
    ]) {
      const event = JSON.stringify({
        hook_event_name: 'PreToolUse', tool_name: 'Edit', cwd: dir,
        tool_input: { file_path: join(dir, 'src', 'main.ts'), old_string: 'a', new_string: 'b' },
      });
      const hookArgs = [SERVER_MAIN, 'hook', 'claude-code', '--mode', slug, '--project-root', dir, '--config-dir', join(dir, 'global-config')];
      const run = (kind) => (kind === 'ours' ? once(hookArgs, event, true) : once(['-e', '0'], event, null));
      await run('floor');
      await run('ours');
      const runs = await alternate(rounds, run);
      const ours = median(runs.ours);
      const floor = median(runs.floor);
      const ratio = ours / floor;
      rows.push(row(`hook start, ${label} (spawn → answer)`, {
        ours: ms(ours), floor: `${ms(floor)} (node -e 0)`, ratio, target: `≤ ${START_TARGET.toFixed(2)}× node -e 0`, pass: ratio <= START_TARGET,
        keys: { [`${key}_ms`]: round(ours, 1), [`${key}_node_ms`]: round(floor, 1), [`${key}_ratio`]: round(ratio) },
      }));
    }
    return rows;
  } finally {
    plain.cleanup();
    withModes.cleanup();
  }
}
