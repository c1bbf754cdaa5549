// The hook's decision in one process (what the HTTP endpoint does per call, without HTTP): the
// event's parse and judgeEvent under the built-in architect mode (edits to .md only), for a call the
// pattern refuses (src/main.ts: no system call) and one it allows (docs/plan.md, docs not made yet:
// two lstat). Once in a tight loop, and once with 16 MB of other memory written between calls, as a
// server's HTTP work leaves the caches between two requests. Information: no target of its own
// (the endpoint's is `--only=hookhttp`); docs/performance.md, "Round 3, fifth pass".
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO, median, now, round, row } from './lib.mjs';

const dist = (file) => pathToFileURL(join(REPO, 'dist', file)).href;
/** Bytes written between two calls in the disturbed loop: past this machine's last-level cache. */
const DISTURB_BYTES = 16 * 1024 * 1024;

export async function decision({ rounds, calls }) {
  const { BUILTIN_MODES } = await import(dist('modes/builtin.js'));
  const { compileMode } = await import(dist('modes/permissions.js'));
  const { judgeEvent } = await import(dist('hook/decide.js'));
  const { parseToolEvent } = await import(dist('hook/event.js'));
  const dir = mkdtempSync(join(tmpdir(), 'roo-bench-decision-'));
  try {
    const mode = compileMode(BUILTIN_MODES.find((m) => m.slug === 'architect'));
    const text = (file) => JSON.stringify({
      hook_event_name: 'PreToolUse', tool_name: 'Edit', cwd: dir, session_id: 'bench', transcript_path: join(dir, 't.jsonl'),
      tool_input: { file_path: join(dir, file), old_string: 'a', new_string: 'b' },
    });
    const cases = { refused: { text: text('src/main.ts'), deny: true }, allowed: { text: text('docs/plan.md'), deny: false } };
    const other = new Uint32Array(DISTURB_BYTES / 4);
    /** µs per call of `n` calls, timed one by one so the disturbing writes are not counted. */
    const loop = ({ text: t, deny }, n, disturb) => {
      let total = 0;
      for (let i = 0; i < n; i++) {
        if (disturb) for (let j = 0; j < other.length; j += 16) other[j] += 1;
        const t0 = now();
        const verdict = judgeEvent(mode, parseToolEvent(t), dir);
        total += now() - t0;
        if (verdict.deny !== deny) throw new Error(`unexpected verdict for ${t}`);
      }
      return (total * 1000) / n;
    };
    const kinds = Object.entries(cases).flatMap(([name, c]) => [[`${name} hot`, c, false], [`${name} disturbed`, c, true]]);
    for (const [, c, disturb] of kinds) loop(c, disturb ? 500 : 20_000, disturb); // JIT warm-up
    const runs = new Map(kinds.map(([k]) => [k, []]));
    for (let r = 0; r < rounds; r++) {
      for (const [k, c, disturb] of r % 2 === 0 ? kinds : [...kinds].reverse()) runs.get(k).push(loop(c, disturb ? Math.ceil(calls / 20) : calls, disturb));
    }
    const us = (k) => median(runs.get(k));
    return ['refused', 'allowed'].map((name) => row(`hook decision in process (parse + judgeEvent), ${name}: hot / caches disturbed`, {
      ours: `${us(`${name} hot`).toFixed(2)} / ${us(`${name} disturbed`).toFixed(2)} µs`,
      keys: { [`decision_${name}_hot_us`]: round(us(`${name} hot`), 2), [`decision_${name}_disturbed_us`]: round(us(`${name} disturbed`), 2) },
    }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
