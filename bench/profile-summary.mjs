// Reads V8 .cpuprofile files (from `node bench/run.mjs --cpu-prof`) and prints where the time went:
// self time per function and inclusive time per function, top N. Reads only; never runs the server.
// Usage: node bench/profile-summary.mjs FILE.cpuprofile [...] [--top=25] [--filter=dist/]
import { readFileSync } from 'node:fs';

function summarize(file, top, filter) {
  const prof = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // Sample time: each sample lasts until the next one.
  const selfUs = new Map();
  for (let i = 0; i < prof.samples.length; i++) {
    const dt = prof.timeDeltas[i + 1] ?? 0;
    selfUs.set(prof.samples[i], (selfUs.get(prof.samples[i]) ?? 0) + dt);
  }
  const label = (n) => {
    const f = n.callFrame;
    const url = f.url.replace(/^file:\/\/.*?\/(dist|bench|node_modules)\//, '$1/');
    return `${f.functionName || '(anonymous)'} ${url ? `${url}:${f.lineNumber + 1}` : ''}`.trim();
  };
  const self = new Map();
  const incl = new Map();
  let total = 0;
  for (const [id, us] of selfUs) {
    total += us;
    const node = byId.get(id);
    self.set(label(node), (self.get(label(node)) ?? 0) + us);
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const l = label(byId.get(cur));
      if (seen.has(l)) continue; // recursion counts once
      seen.add(l);
      incl.set(l, (incl.get(l) ?? 0) + us);
    }
  }
  const show = (title, map) => {
    const rows = [...map].filter(([l]) => !filter || l.includes(filter)).sort((a, b) => b[1] - a[1]).slice(0, top);
    process.stdout.write(`\n${title}\n`);
    for (const [l, us] of rows) process.stdout.write(`${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${l}\n`);
  };
  process.stdout.write(`${file}: ${(total / 1000).toFixed(0)} ms sampled\n`);
  show('self time', self);
  show('inclusive time', incl);
}

process.stdout.on('error', () => process.exit(0)); // a closed pipe (| head) ends the listing quietly
const args = process.argv.slice(2);
const top = Number(args.find((a) => a.startsWith('--top='))?.slice(6) ?? 25);
const filter = args.find((a) => a.startsWith('--filter='))?.slice(9);
for (const file of args.filter((a) => !a.startsWith('--'))) summarize(file, top, filter);
