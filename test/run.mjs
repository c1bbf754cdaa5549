// Runs every test file under test/protocol and test/unit (or the files and folders named) with node:test
// (TypeScript through test/ts) and test/reporter.mjs, whose last line `N passed, N failed, N skipped`
// stays the last line printed. Protocol tests spawn the built server: build first (`npm test` does).
// Exit 1 when a test failed, node:test itself failed, or no test ran; it never builds anything.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { cacheDir, compileAll } from './ts/cache.mjs';

/** The run's folder of compiled test code, inside the tests' temp folder. */
const COMPILED = '.compiled';

// npm test's tiers, the long-running one first, so that no long file starts last and runs alone at
// the end. test/robustness (stress, crashes, signals, hostile input) is a run of its own,
// `npm run test:robustness`, which CI runs too: with it npm test went well past its 3-minute budget.
const roots = process.argv.length > 2 ? process.argv.slice(2) : ['test/protocol', 'test/unit'];
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
if (files.length === 0) {
  console.error('test/run.mjs: no test files found');
  console.log('0 passed, 0 failed, 0 skipped');
  process.exit(1);
}

const reporter = new URL('./reporter.mjs', import.meta.url).href;
// A run started from inside a test (test/unit/test-runner.test.ts) is a run of its own, not part of the outer one.
// The tests get a temp folder of their own, so that whatever one leaves behind is seen (and
// reported below) rather than piling up in the machine's. The compile cache stays in the machine's
// (cacheDir(), named to the tests as ROO_TEST_TS_CACHE), so runs share it.
const testTemp = mkdtempSync(join(tmpdir(), 'rms-test-run-'));
// Open to every user as the machine's temp folder is (sticky): some tests run the server as another user.
chmodSync(testTemp, 0o1777);
// The test files and the TypeScript they import are compiled here (test/ts/cache.mjs keeps each
// file's JavaScript by content) and laid out in a folder of the run's own, mirroring the
// repository, so that each test process runs plain JavaScript: a process per test file starting
// tsx cost about 0.3 s of CPU, and loader hooks still 0.1 s (their thread and a round trip per
// module). The compiled code names the .ts files in its source maps, import.meta and imports of
// anything else, so paths and stacks are the repository's; the reporter names the .ts files.
const tsCache = cacheDir();
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const compiledTree = join(testTemp, COMPILED);
const inTree = (file) => {
  const rel = relative(ROOT, file);
  return join(compiledTree, rel.startsWith('..') || isAbsolute(rel) ? join('outside', file) : rel).replace(/\.ts$/, '.js').replace(/\.mts$/, '.mjs');
};
mkdirSync(compiledTree);
for (const [file, text] of compileAll(tsCache, files)) {
  mkdirSync(dirname(inTree(file)), { recursive: true });
  writeFileSync(inTree(file), text);
}
writeFileSync(join(compiledTree, 'package.json'), '{ "type": "module" }\n');
const runFiles = files.map((f) => (/\.m?ts$/.test(f) ? inTree(resolve(f)) : f));
const env = { ...process.env, ROO_TEST_FILE_COUNT: String(files.length), TMPDIR: testTemp, TMP: testTemp, TEMP: testTemp, ROO_TEST_TS_CACHE: tsCache, ROO_TEST_COMPILED: `${compiledTree}\n${ROOT}` };
delete env.NODE_TEST_CONTEXT;
// Most files spend their time waiting on the processes and sockets they test, not computing: two
// files per core keep the cores busy (measured on 2 cores: 152 s at 4 against 190 s at 2).
const concurrency = Math.max(2, 2 * availableParallelism());
const started = performance.now();
const child = spawn(process.execPath,
  ['--enable-source-maps', '--test', `--test-concurrency=${concurrency}`, `--test-reporter=${reporter}`, '--test-reporter-destination=stdout', ...runFiles],
  { stdio: ['ignore', 'pipe', 'inherit'], env });

// Every line passes through at once except the latest, held back so that nothing we add follows
// the summary line.
let held;
const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
lines.on('line', (line) => { if (held !== undefined) process.stdout.write(held + '\n'); held = line; });
const linesDone = new Promise((done) => lines.once('close', done));
const [status, signal] = await new Promise((done) => child.on('close', (code, sig) => done([code, sig])));
await linesDone;

const m = /^(\d+) passed, (\d+) failed, (\d+) skipped$/.exec(held ?? '');
const counted = m ? { passed: Number(m[1]), failed: Number(m[2]) } : undefined;
const problems = [];
if (!m && held !== undefined) process.stdout.write(held + '\n');
if (!counted) problems.push('the reporter printed no summary line');
else if (counted.passed + counted.failed === 0) problems.push('no test ran');
if (status !== 0 && counted && counted.failed === 0) problems.push(`node --test exited with ${signal ?? `status ${status}`} although no test failed`);
const leftovers = readdirSync(testTemp).filter((name) => name !== COMPILED);
if (leftovers.length > 0) problems.push(`the tests left ${leftovers.length} thing(s) in their temp folder: ${leftovers.slice(0, 5).join(', ')}${leftovers.length > 5 ? ', …' : ''}`);
rmSync(testTemp, { recursive: true, force: true });
for (const p of problems) process.stdout.write(`test/run.mjs: ${p}\n`);
process.stdout.write(`${files.length} file${files.length === 1 ? '' : 's'} in ${((performance.now() - started) / 1000).toFixed(1)} s, ${concurrency} at a time\n`);
process.stdout.write(m ? held + '\n' : '0 passed, 0 failed, 0 skipped\n');
process.exitCode = problems.length || status !== 0 || (counted && counted.failed > 0) ? 1 : 0;
