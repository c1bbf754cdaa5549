// The npm package as a user gets it: what `npm pack` ships (what runs and what is read, no
// development scripts), links in the shipped docs that resolve inside it, and an install that runs
// no scripts and gives a working command. It packs the built dist/ as it is and never builds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  repository: { url: string }; homepage: string; bugs: { url: string }; scripts: Record<string, string>; bin: Record<string, string>;
};

/** https://github.com/<owner>/roo-modes-server, read from package.json's repository. */
const REPO_URL = /^git\+(https:\/\/github\.com\/[^/]+\/roo-modes-server)\.git$/.exec(pkg.repository.url)?.[1];

function npm(args: string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  // --ignore-scripts: the test packs the dist/ the suite runs against; prepack would rebuild it under the running tests.
  const r = spawnSync('npm', args, { cwd, encoding: 'utf8', timeout: 120_000, env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

let packed: string[] | undefined;
/** What `npm pack` would ship, asked once per file (each ask starts npm). */
function packedFiles(): string[] {
  if (packed !== undefined) return packed;
  const r = npm(['pack', '--dry-run', '--json', '--ignore-scripts'], REPO);
  assert.equal(r.status, 0, r.stderr);
  const [entry] = JSON.parse(r.stdout) as Array<{ files: Array<{ path: string }> }>;
  packed = entry!.files.map((f) => f.path).sort();
  return packed;
}

/** Relative link targets in a markdown text: [text](target), without the #anchor; code spans are not links. */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!)
    .filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith('#'))
    .map((t) => t.split('#')[0]!);
}

test('package.json names one repository URL in repository, homepage and bugs', () => {
  assert.ok(REPO_URL, `repository.url has the form git+https://github.com/<owner>/roo-modes-server.git: ${pkg.repository.url}`);
  assert.equal(pkg.homepage, `${REPO_URL}#readme`);
  assert.equal(pkg.bugs.url, `${REPO_URL}/issues`);
});

test('installing runs no script and the clone builds once per command: no install hooks, dist/ built by prepack', () => {
  for (const hook of ['preinstall', 'install', 'postinstall', 'prepublish', 'preprepare', 'prepare', 'postprepare']) {
    assert.equal(pkg.scripts[hook], undefined, `scripts.${hook} runs at install time`);
  }
  assert.match(pkg.scripts.prepack ?? '', /npm run build/);
  assert.equal(pkg.scripts.test?.match(/npm run build/g)?.length, 1, `npm test builds exactly once: ${pkg.scripts.test}`);
  assert.match(readFileSync(join(REPO, '.gitignore'), 'utf8'), /^\*\.tgz$/m);
});

test('npm pack ships dist, schemas, README, docs and LICENSE, and no development files', () => {
  const files = packedFiles();
  for (const needed of ['LICENSE', 'README.md', 'package.json', 'dist/main.js', 'dist/main.cjs', 'dist/roo-modes-check.cjs', 'dist/plugin-decision.cjs', 'dist/serve.cjs', 'dist/serve-rest.cjs', 'dist/client/index.js', 'schemas/config.schema.json', 'docs/api.md', 'docs/integration.md', 'docs/cli.md', 'docs/modes.md', 'docs/configuration.md', 'docs/protocol.md', 'docs/security.md', 'docs/development.md']) {
    assert.ok(files.includes(needed), `${needed} is in the package`);
  }
  const stray = files.filter((f) => !(['LICENSE', 'README.md', 'package.json'].includes(f)
    || f.startsWith('dist/') || f.startsWith('schemas/') || (f.startsWith('docs/') && f.endsWith('.md'))));
  assert.deepEqual(stray, [], 'only what a user runs and reads (no src/, test/, bench/, .ci/, docs scripts, tarballs)');
  assert.deepEqual(files.filter((f) => f.startsWith('dist/.tsbuildinfo')), [], 'not the compiler\'s notes on what it built');
  assert.deepEqual(files.filter((f) => f.startsWith('dist/.code-cache')), [], 'not the V8 code cache of the machine that packed it');
  assert.ok(files.some((f) => f.endsWith('.d.ts')), 'the client library ships its types');
  const license = readFileSync(join(REPO, 'LICENSE'), 'utf8');
  assert.match(license, /^MIT License/);
  assert.match(license, /Copyright \(c\) \d{4} roo-modes-server contributors/);
});

test('every relative link in the shipped README and docs points at a file in the package; links to the rest use the repository URL', () => {
  const files = new Set(packedFiles());
  const docs = [...files].filter((f) => f.endsWith('.md'));
  assert.ok(docs.includes('README.md'));
  const broken: string[] = [];
  for (const doc of docs) {
    const text = readFileSync(join(REPO, doc), 'utf8');
    for (const target of relativeLinks(text)) {
      const inPackage = posix.normalize(posix.join(posix.dirname(doc), decodeURI(target)));
      if (!files.has(inPackage)) broken.push(`${doc}: ${target}`);
    }
    for (const m of text.matchAll(/https:\/\/github\.com\/[^/\s)]+\/roo-modes-server\b/g)) {
      assert.equal(m[0], REPO_URL, `${doc} links to the repository as ${REPO_URL}`);
    }
  }
  assert.deepEqual(broken, [], 'relative links that leave the package');
  assert.ok(relativeLinks(readFileSync(join(REPO, 'README.md'), 'utf8')).includes('docs/integration.md'), 'the link check sees README links');
});

test('the packed tarball installs without running scripts and its command answers', { timeout: 240_000 }, (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rms-pack-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const packed = npm(['pack', '--ignore-scripts', '--pack-destination', dir], REPO);
  assert.equal(packed.status, 0, packed.stderr);
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  assert.ok(tarball, `npm pack wrote a tarball into ${dir}`);
  const prefix = join(dir, 'prefix');
  const installed = npm(['install', '--global', '--offline', '--prefix', prefix, join(dir, tarball)], dir);
  assert.equal(installed.status, 0, installed.stderr);
  assert.doesNotMatch(installed.stdout + installed.stderr, /install scripts|prepare|allow-scripts/i, 'npm says nothing about scripts');
  const bin = join(prefix, 'bin', Object.keys(pkg.bin)[0]!);
  const r = spawnSync(bin, ['modes'], { cwd: dir, encoding: 'utf8', timeout: 60_000, env: { ...process.env, HOME: dir, ROO_CONFIG_DIR: join(dir, '.roo-code') } });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\bcode\b/);
  assert.equal(dirname(dirname(bin)), prefix);
});
