// `roo-modes-server modes --html FILE` from the built CLI: the view page with the modes inside, no
// path of the machine that wrote it, the problems on stderr too, and precise refusals of bad usage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './cli-run.js';

function folder(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'rms-html-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('modes --html writes the view with every mode inside, naming files without this machine\'s paths', async (t) => {
  const home = folder(t);
  const project = join(home, 'work', 'shop');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, '.roomodes'), 'customModes:\n  - slug: notes\n    name: 📝 Notes\n    roleDefinition: r\n    groups: [read, [edit, {fileRegex: "\\\\.md$", description: Notes only}]]\n  - slug: bad\n    name: Bad\n    groups: [read]\n');
  const out = join(home, 'out', 'modes.html');
  mkdirSync(join(home, 'out'));
  const r = await runCli(['modes', '--html', out, '--project-root', project], { home });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Wrote the modes view of 6 modes to /);
  assert.match(r.stderr, /1 problem in the mode files \(shown in the page\):\n.*\.roomodes:6:5: /);
  const page = readFileSync(out, 'utf8');
  const slot = /<script type="application\/json" id="view-data">(.+?)<\/script>/s.exec(page);
  assert.ok(slot, 'the data slot is filled');
  const data = JSON.parse(slot[1]!) as { project: string; modes: { slug: string; file?: string; groups: Record<string, unknown> }[]; problems: { file: string; line: number }[] };
  assert.equal(data.project, 'shop');
  assert.deepEqual(data.modes.map((m) => m.slug), ['code', 'architect', 'ask', 'debug', 'orchestrator', 'notes']);
  assert.deepEqual(data.modes[5]!.groups.edit, { enabled: true, file_regex: '\\.md$', description: 'Notes only' });
  assert.equal(data.modes[5]!.file, '.roomodes');
  assert.deepEqual(data.problems.map((p) => [p.file, p.line]), [['.roomodes', 6]]);
  assert.ok(!page.includes(home), 'no path of the machine that wrote it');
});

test('modes --html refuses a missing file name, a second output form, and a folder that does not exist', async (t) => {
  const home = folder(t);
  const missing = await runCli(['modes', '--html'], { home });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^roo-modes-server modes: --html needs a value \(see roo-modes-server modes --help\)/);
  const both = await runCli(['modes', '--json', '--html', join(home, 'x.html')], { home });
  assert.equal(both.code, 2);
  assert.match(both.stderr, /--json, --matrix and --html exclude each other/);
  const nowhere = join(home, 'no', 'such', 'dir', 'x.html');
  const r = await runCli(['modes', `--html=${nowhere}`, '--project-root', home], { home });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^roo-modes-server modes: cannot write .*x\.html: a folder on the path does not exist \(ENOENT\)\n$/);
});
