// The bundles' V8 code cache (src/main.cts): made at the first exit of each use (serve over stdio or
// HTTP, each other subcommand), then used as it is by later runs (a rejected cache would be written
// again, under a new inode), never trusted when it is damaged, and made under the flags the server
// sets while it runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const INIT = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"cache","version":"1"}}}\n';

/** A copy of the build (the real dist/ is shared by the suite's other servers) with nothing cached. */
function buildCopy(t: { after(fn: () => void): void }): string {
  const root = mkdtempSync(join(tmpdir(), 'code-cache-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  cpSync(join(REPO, 'dist'), join(root, 'dist'), { recursive: true, filter: (src) => !src.includes('.code-cache') && !src.includes('.tsbuildinfo') });
  cpSync(join(REPO, 'schemas'), join(root, 'schemas'), { recursive: true });
  cpSync(join(REPO, 'package.json'), join(root, 'package.json'));
  return root;
}

/** One stdio server: initialize answered, then stdin closed, so it exits as a client leaving makes it. */
function serveOnce(root: string, execArgv: string[] = []): void {
  const home = mkdtempSync(join(root, 'home-'));
  const r = spawnSync(process.execPath, [...execArgv, join(root, 'dist', 'main.cjs'), '--project-root', home], {
    input: INIT, encoding: 'utf8', timeout: 30_000, cwd: home, env: { ...process.env, HOME: home, ROO_CONFIG_DIR: join(home, '.roo-code') },
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^\{"jsonrpc":"2\.0","id":1,"result":\{"protocolVersion":"2025-06-18"/);
}

/** The cache files by name, with their inode and modification time (a rewrite changes the inode: it is renamed into place). */
function cached(root: string): Map<string, string> {
  const dir = join(root, 'dist', '.code-cache');
  let names: string[];
  try { names = readdirSync(dir); } catch { return new Map(); }
  return new Map(names.map((n) => { const s = statSync(join(dir, n)); return [n, `${s.ino}:${s.mtimeMs}`]; }));
}

test('the first start writes one cache per bundle, named by the build; the next start uses them without writing', (t) => {
  const root = buildCopy(t);
  serveOnce(root);
  const first = cached(root);
  const build = /^\/\/ build ([0-9a-f]{16})\n/.exec(readFileSync(join(root, 'dist', 'serve.cjs'), 'utf8'))?.[1];
  assert.ok(build, 'the bundle opens with its build id');
  assert.deepEqual([...first.keys()].map((n) => n.replace(/-v\d+\.\d+\.\d+-[0-9a-f]{8}-serve\.bin$/, '')).sort(), [`serve-rest.cjs-${build}`, `serve.cjs-${build}`]);
  serveOnce(root);
  serveOnce(root);
  assert.deepEqual(cached(root), first, 'V8 accepted both caches: neither was written again');
});

test('other Node flags get caches of their own instead of rejecting each other\'s', (t) => {
  const root = buildCopy(t);
  serveOnce(root);
  serveOnce(root, ['--max-old-space-size=320']);
  const both = cached(root);
  assert.equal(both.size, 4);
  serveOnce(root);
  serveOnce(root, ['--max-old-space-size=320']);
  assert.deepEqual(cached(root), both);
});

test('a damaged cache is not trusted: the server answers as usual and writes a good one in its place', (t) => {
  const root = buildCopy(t);
  serveOnce(root);
  const dir = join(root, 'dist', '.code-cache');
  for (const name of readdirSync(dir)) {
    const bytes = readFileSync(join(dir, name));
    for (let i = 64; i < bytes.length; i += 97) bytes[i] = bytes[i]! ^ 0x5a;
    writeFileSync(join(dir, name), bytes);
  }
  const damaged = cached(root);
  serveOnce(root);
  const mended = cached(root);
  for (const [name, at] of mended) assert.notEqual(at, damaged.get(name), `${name} was written again`);
  serveOnce(root);
  assert.deepEqual(cached(root), mended, 'and the new one is used');
});

test('an HTTP server keeps caches of its own and uses them: the flags it sets while serving are set before its bundles compile', async (t) => {
  const root = buildCopy(t);
  const runHttp = async (): Promise<void> => {
    const home = mkdtempSync(join(root, 'home-'));
    const child = spawn(process.execPath, [join(root, 'dist', 'main.cjs'), 'serve', '--http', '--port', '0', '--project-root', home], {
      cwd: home, env: { ...process.env, HOME: home, ROO_CONFIG_DIR: join(home, '.roo-code') }, stdio: ['ignore', 'ignore', 'pipe'],
    });
    t.after(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (c: string) => { stderr += c; if (/listening on http:\/\//.test(stderr)) resolve(); });
      void exited.then(() => reject(new Error(`exited before listening:\n${stderr}`)));
    });
    const url = /listening on (http:\/\/\S+)/.exec(stderr)![1]!;
    const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: INIT });
    assert.equal(answer.status, 200);
    await answer.text();
    child.kill('SIGTERM');
    assert.equal(await exited, 0, stderr);
  };
  await runHttp();
  const first = cached(root);
  assert.deepEqual([...first.keys()].filter((n) => n.endsWith('-serve-http.bin')).length, 2, [...first.keys()].join(', '));
  await runHttp();
  assert.deepEqual(cached(root), first, 'the second HTTP server used what the first made');
  serveOnce(root);
  const withStdio = cached(root);
  assert.equal(withStdio.size, 4, 'a stdio server made its own');
  for (const [name, at] of first) assert.equal(withStdio.get(name), at, `${name} untouched by the stdio server`);
});

test('each subcommand keeps caches of its own: a server started after an export does not get one made by the export', (t) => {
  const root = buildCopy(t);
  const project = mkdtempSync(join(root, 'project-'));
  writeFileSync(join(project, '.roomodes'), JSON.stringify({ customModes: [{ slug: 'docs', name: 'Docs', roleDefinition: 'Writes docs.', groups: ['read'] }] }));
  const exportOnce = (): void => {
    const r = spawnSync(process.execPath, [join(root, 'dist', 'main.cjs'), 'export', '--to', 'claude-code', '--project-root', project, '--dry-run'], {
      encoding: 'utf8', timeout: 30_000, cwd: project, env: { ...process.env, HOME: project, ROO_CONFIG_DIR: join(project, '.roo-code') },
    });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /would write: .*\.claude\/agents\/docs\.md/);
  };
  exportOnce();
  const afterExport = cached(root);
  assert.deepEqual([...afterExport.keys()].map((n) => /-(\w+)\.bin$/.exec(n)?.[1]), ['export', 'export']);
  exportOnce();
  serveOnce(root);
  const all = cached(root);
  assert.equal(all.size, 4);
  for (const [name, at] of afterExport) assert.equal(all.get(name), at, `${name} used as it was`);
});

test('a build moved with its caches makes caches of its own: stack traces name where it is, not where it was', (t) => {
  const first = buildCopy(t);
  serveOnce(first);
  assert.equal(cached(first).size, 2);
  const moved = mkdtempSync(join(tmpdir(), 'code-cache-moved-'));
  t.after(() => rmSync(moved, { recursive: true, force: true }));
  cpSync(first, moved, { recursive: true });
  // Broken on purpose, so that the server prints a stack trace from inside its bundle.
  rmSync(join(moved, 'schemas', 'config.schema.json'));
  const r = spawnSync(process.execPath, [join(moved, 'dist', 'main.cjs'), '--project-root', moved], {
    input: INIT, encoding: 'utf8', timeout: 30_000, cwd: moved, env: { ...process.env, HOME: moved, ROO_CONFIG_DIR: join(moved, '.roo-code') },
  });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /config\.schema\.json/);
  assert.ok(r.stderr.includes(join(moved, 'dist', 'serve.cjs')), `the stack names the moved bundle: ${r.stderr}`);
  assert.ok(!r.stderr.includes(first), `nothing names the old place: ${r.stderr}`);
});

test('every V8 flag src/ sets while serving is among those src/main.cts sets before compiling', () => {
  const main = readFileSync(join(REPO, 'src', 'main.cts'), 'utf8');
  const list = /const RUNTIME_V8_FLAGS = \[([^\]]*)\]/.exec(main)?.[1];
  assert.ok(list, 'main.cts lists the flags');
  const before = new Set([...list.matchAll(/'([^']+)'/g)].map((m) => m[1]));
  const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : /\.c?ts$/.test(e.name) && e.name !== 'main.cts' ? [join(dir, e.name)] : []));
  const set = walk(join(REPO, 'src')).flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/setFlagsFromString\('([^']+)'\)/g)].map((m) => m[1]!));
  assert.ok(set.length >= 3, `found the flags src/ sets: ${set.join(', ')}`);
  for (const flag of set) assert.ok(before.has(flag), `${flag} is set before the bundles compile`);
});

test('the check file sets, before its code compiles, every flag that code sets while it runs (else V8 would refuse its cache every time)', async () => {
  const { CHECK_V8_FLAGS } = await import('../../src/hook/check-loader.js');
  const built = readFileSync(join(REPO, 'dist', 'roo-modes-check.cjs'), 'utf8');
  const set = [...built.matchAll(/setFlagsFromString\("([^"]+)"\)/g)].map((m) => m[1]!);
  assert.ok(set.length >= 2, `found the flags the check's code sets: ${set.join(', ')}`);
  for (const flag of set) assert.ok(CHECK_V8_FLAGS.includes(flag), `${flag} is set before the check's code compiles`);
  assert.ok(CHECK_V8_FLAGS.includes('--verify-snapshot-checksum'), 'a damaged cache is refused, not run');
});
