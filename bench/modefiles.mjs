// Mode files: load + validate + compile a generated project .roomodes of 10, 100 and 1,000 modes
// through dist/modes/catalogue.js (loadCatalogue, as the server does at start and on each change).
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { REPO, median, ms, now, projectWithModes, round, row } from './lib.mjs';

const CATALOGUE = pathToFileURL(join(REPO, 'dist', 'modes', 'catalogue.js')).href;
const SELF = fileURLToPath(import.meta.url);
/** "Linear or better": from one size to the next (×10) the time may grow 10× plus this much noise. */
const SLACK = 1.25;
const BUILTINS = 5;

const sourcesOf = (project) => ({ projectRoot: project.dir, configDir: project.configDir, globalModesFile: null });

/** One load in a fresh process: the cold path a starting server takes (module import not counted). */
function coldLoad(project) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SELF, '--load-once', JSON.stringify(sourcesOf(project))], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (c) => { out += c; });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`cold load exited ${code}`))));
  });
}

async function loadOnceAndPrint(sources) {
  const { loadCatalogue } = await import(CATALOGUE);
  const t0 = now();
  const cat = await loadCatalogue(sources);
  const elapsed = now() - t0;
  process.stdout.write(JSON.stringify({ ms: elapsed, modes: cat.modes.length, issues: cat.issues.length }));
}

export async function modeFiles({ rounds, sizes }) {
  const { loadCatalogue } = await import(CATALOGUE);
  const projects = sizes.map((count) => ({ count, ...projectWithModes(count) }));
  try {
    const warm = new Map(sizes.map((n) => [n, []]));
    const cold = new Map(sizes.map((n) => [n, []]));
    for (const p of projects) {
      const cat = await loadCatalogue(sourcesOf(p));
      if (cat.modes.length !== p.count + BUILTINS || cat.issues.length > 0) {
        throw new Error(`generated .roomodes of ${p.count} modes loaded ${cat.modes.length} modes, issues: ${JSON.stringify(cat.issues.slice(0, 3))}`);
      }
      for (let i = 0; i < 3; i++) await loadCatalogue(sourcesOf(p)); // JIT warm-up
    }
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? projects : [...projects].reverse();
      for (const p of order) {
        const t0 = now();
        await loadCatalogue(sourcesOf(p));
        warm.get(p.count).push(now() - t0);
        cold.get(p.count).push((await coldLoad(p)).ms);
      }
    }
    const figures = projects.map((p) => ({ count: p.count, bytes: p.bytes, warm: median(warm.get(p.count)), cold: median(cold.get(p.count)) }));
    const big = figures[figures.length - 1];
    const mid = figures[figures.length - 2];
    const factor = big.count / mid.count;
    const mbps = (f, key) => f.bytes / 2 ** 20 / (f[key] / 1000);
    const keys = {};
    for (const f of figures) {
      keys[`modefile_${f.count}_cold_ms`] = round(f.cold, 2);
      keys[`modefile_${f.count}_warm_ms`] = round(f.warm, 2);
    }
    keys[`modefile_${big.count}_bytes`] = big.bytes;
    keys[`modefile_${big.count}_cold_mbps`] = round(mbps(big, 'cold'), 2);
    keys[`modefile_${big.count}_warm_mbps`] = round(mbps(big, 'warm'), 2);
    const rows = ['cold', 'warm'].map((key) => {
      const growth = big[key] / mid[key];
      keys[`modefile_growth_${key}`] = round(growth, 2);
      return row(`mode file load, ${key === 'cold' ? 'cold (fresh process)' : 'warm (reload)'} (${figures.map((f) => f.count).join('/')} modes)`, {
        ours: `${figures.map((f) => ms(f[key])).join(' / ')}; ${mbps(big, key).toFixed(2)} MB/s`,
        ratio: growth,
        target: `×${mid.count}→${big.count} ≤ ${(factor * SLACK).toFixed(1)}×`,
        pass: growth <= factor * SLACK,
        keys: key === 'cold' ? keys : {},
      });
    });
    const notes = figures.map((f) => `  ${f.count} modes: ${(f.bytes / 1024).toFixed(1)} KB; cold ${ms(f.cold)} (${mbps(f, 'cold').toFixed(2)} MB/s), warm ${ms(f.warm)} (${mbps(f, 'warm').toFixed(2)} MB/s)`);
    return { rows, notes };
  } finally {
    for (const p of projects) p.cleanup();
  }
}

if (process.argv[2] === '--load-once') await loadOnceAndPrint(JSON.parse(process.argv[3]));
