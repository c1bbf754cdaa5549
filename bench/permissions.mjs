// Permission check microbenchmark: ns per (catalogue lookup + checkTool), the tool half of what
// validate_tool_use decides (paths need the file system: src/paths), with 10 and 1,000 modes loaded.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO, median, now, projectWithModes, round, row } from './lib.mjs';

const dist = (file) => pathToFileURL(join(REPO, 'dist', 'modes', file)).href;
/** Independent of the mode count: 1,000 modes may cost at most this much more per call than 10. */
const LIMIT = 1.25;

// The calls, in turn: a read, two edits (restricted in some generated modes), a command, MCP
// (allow-list and plain), an always-available tool, an unknown tool (a denial listing the allowed tools).
const CALLS = ['read_file', 'write_to_file', 'apply_diff', 'execute_command', 'mcp__github__create_issue', 'use_mcp_tool', 'attempt_completion', 'no_such_tool'];

export async function permissions({ rounds, ops }) {
  const { loadCatalogue } = await import(dist('catalogue.js'));
  const { checkTool } = await import(dist('permissions.js'));
  const sets = [];
  for (const count of [10, 1000]) {
    const project = projectWithModes(count);
    try {
      const cat = await loadCatalogue({ projectRoot: project.dir, configDir: project.configDir, globalModesFile: null });
      // Ten slugs spread over the file, the i-th having generated layout i % 6 in both sets, so the
      // two sets check the same rule shapes and differ only in how many modes surround them.
      const step = Math.floor(count / 10);
      const slugs = Array.from({ length: 10 }, (_, i) => `gen-${String(i * step - ((i * step) % 6) + (i % 6)).padStart(5, '0')}`);
      if (slugs.some((s) => cat.get(s) === undefined)) throw new Error(`a chosen slug is missing from the ${count}-mode catalogue`);
      sets.push({ count, cat, slugs });
    } finally {
      project.cleanup();
    }
  }
  const loop = (set, n) => {
    const { cat, slugs } = set;
    let allowed = 0;
    const t0 = now();
    for (let i = 0; i < n; i++) {
      const tool = CALLS[i % CALLS.length];
      const mode = cat.get(slugs[i % slugs.length]);
      if (checkTool(mode, tool).allowed) allowed++;
    }
    return { ns: ((now() - t0) * 1e6) / n, allowed };
  };
  for (const set of sets) loop(set, Math.min(ops, 50_000)); // JIT warm-up
  const runs = new Map(sets.map((s) => [s.count, []]));
  for (let r = 0; r < rounds; r++) {
    for (const set of r % 2 === 0 ? sets : [...sets].reverse()) runs.get(set.count).push(loop(set, ops).ns);
  }
  const small = median(runs.get(10));
  const large = median(runs.get(1000));
  const ratio = large / small;
  return [row('permission check (lookup + checkTool), 10 vs 1,000 modes', {
    ours: `${small.toFixed(0)} ns / ${large.toFixed(0)} ns per call`, ratio,
    target: `1000/10 ≤ ${LIMIT.toFixed(2)}×`, pass: ratio <= LIMIT,
    keys: { permission_10_ns: round(small, 1), permission_1000_ns: round(large, 1), permission_ratio: round(ratio) },
  })];
}
