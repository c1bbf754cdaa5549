// Runs every test file under test/unit, test/protocol and test/robustness with node:test
// (TypeScript through tsx). Protocol tests spawn the built server, so `npm test` builds first.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const roots = process.argv.length > 2 ? process.argv.slice(2) : ['test/unit', 'test/protocol', 'test/robustness'];
const files = [];
const walk = (p) => {
  if (statSync(p).isFile()) { files.push(p); return; }
  for (const name of readdirSync(p).sort()) {
    const full = join(p, name);
    if (statSync(full).isDirectory()) walk(full);
    else if (/\.test\.(ts|mjs)$/.test(name)) files.push(full);
  }
};
for (const r of roots) { try { walk(r); } catch { /* missing tier */ } }
if (files.length === 0) { console.error('test/run.mjs: no test files found'); process.exit(1); }
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], { stdio: 'inherit' });
process.exit(r.status ?? 1);
