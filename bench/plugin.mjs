// The OpenCode/Kilo plugin deciding in process: its size, its first call (importing the plugin, loading
// the decision file and the modes, one decision) and the CPU per call after it, allowed and refused,
// in Node and, when the pinned OpenCode is installed, in its Bun (BUN_BE_BUN=1), where the agents run it.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { SERVER_MAIN, median, projectWithModes, round, row } from './lib.mjs';

/** A later issue asks for at most 50 µs of CPU per decision after the first. */
const PER_CALL_TARGET_US = 50;
/** OpenCode's binary, as test/agents/install.ts installs it (agents.ts pins the version). */
const OPENCODE = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'roo-modes-server', 'agents', 'opencode-1.18.33', 'node_modules', '.bin', 'opencode');

/** Runs in the child: one JSON line with the first call's wall time and the CPU per call after it. */
const CHILD = `
const [root, calls] = process.argv.slice(2);
const t0 = performance.now();
const { RooModesPlugin } = await import(root + '/.opencode/plugins/roo-modes.js');
const hooks = await RooModesPlugin({ directory: root });
await hooks['chat.params']({ sessionID: 's', agent: 'gen-00001' });
const call = (file) => hooks['tool.execute.before']({ tool: 'write', sessionID: 's', callID: 'c' }, { args: { filePath: root + '/' + file, content: 'x' } }).then(() => 'allowed', () => 'refused');
const first = await call('docs/a.md');
const firstMs = performance.now() - t0;
const out = { first, firstMs };
for (const [label, file, expect] of [['allow', 'docs/a.md', 'allowed'], ['deny', 'src/main.ts', 'refused']]) {
  for (let i = 0; i < 2000; i++) await call(file);
  const c0 = process.cpuUsage();
  for (let i = 0; i < Number(calls); i++) if (await call(file) !== expect) throw new Error(file + ' was not ' + expect);
  const c = process.cpuUsage(c0);
  out[label] = (c.user + c.system) / Number(calls);
}
process.stdout.write(JSON.stringify(out));
`;

export async function plugin({ rounds, calls }) {
  const p = projectWithModes(100);
  try {
    const exported = spawnSync(process.execPath, [SERVER_MAIN, 'export', '--to', 'opencode', '--plugin', '--mode', 'gen-00001', '--project-root', p.dir, '--config-dir', p.configDir], { encoding: 'utf8' });
    if (exported.status !== 0) throw new Error(`export failed: ${exported.stdout}${exported.stderr}`);
    const script = join(p.dir, 'measure.mjs');
    writeFileSync(script, CHILD);
    const size = (f) => statSync(join(p.dir, f)).size;
    const pluginBytes = size('.opencode/plugins/roo-modes.js');
    const decisionBytes = size('.opencode/roo-modes/decision.cjs');
    const rows = [row('OpenCode/Kilo plugin: files exported', {
      ours: `${(pluginBytes / 1024).toFixed(1)} KB plugin + ${(decisionBytes / 1024).toFixed(1)} KB decision code`,
      keys: { plugin_bytes: pluginBytes, plugin_decision_bytes: decisionBytes },
    })];
    const runtimes = [['Node', [process.execPath], {}]];
    if (existsSync(OPENCODE)) runtimes.push(['Bun', [OPENCODE], { BUN_BE_BUN: '1' }]);
    for (const [name, argv, env] of runtimes) {
      const runs = [];
      for (let r = 0; r < rounds; r++) {
        const child = spawnSync(argv[0], [...argv.slice(1), script, p.dir, String(calls)], { encoding: 'utf8', env: { ...process.env, ROO_CONFIG_DIR: p.configDir, ...env } });
        if (child.status !== 0) throw new Error(`${name}: ${child.stderr}`);
        const out = JSON.parse(child.stdout);
        if (out.first !== 'allowed') throw new Error(`${name}: the first call was ${out.first}`);
        runs.push(out);
      }
      const key = name.toLowerCase();
      const first = median(runs.map((r) => r.firstMs));
      const allow = median(runs.map((r) => r.allow));
      const deny = median(runs.map((r) => r.deny));
      rows.push(row(`plugin in ${name}: first call (import, load, decide; 100 modes)`, { ours: `${first.toFixed(1)} ms`, keys: { [`plugin_${key}_first_ms`]: round(first, 1) } }));
      rows.push(row(`plugin in ${name}: CPU per call after the first (allowed / refused)`, {
        ours: `${allow.toFixed(1)} / ${deny.toFixed(1)} µs`, target: `≤ ${PER_CALL_TARGET_US} µs`, pass: Math.max(allow, deny) <= PER_CALL_TARGET_US,
        keys: { [`plugin_${key}_allow_us`]: round(allow, 1), [`plugin_${key}_deny_us`]: round(deny, 1) },
      }));
    }
    return rows;
  } finally {
    p.cleanup();
  }
}
