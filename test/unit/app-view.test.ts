// The modes view's server half: the data it draws (files named without this machine's paths, the
// problems at their places), the static page's data slot, the built page loading nothing, and the
// extension table. The page's drawing is tested in a browser (test/browser).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCatalogue } from '../../src/modes/catalogue.js';
import { buildViewData, matrixText, viewPath } from '../../src/app/matrix.js';
import { DATA_SLOT, staticPage, VIEW_PAGE } from '../../src/app/page.js';
import { offersApps, toolMeta, UI_EXTENSION, VIEW_MIME, VIEW_AUDIENCE } from '../../src/mcp/apps.js';
// @ts-expect-error: a build script in plain JavaScript, without type declarations
import { assemble, selfContainedProblems, ViewBuildError } from '../../src/build/app-view.mjs';

function place(t: { after(fn: () => void): void }): { home: string; project: string } {
  const home = mkdtempSync(join(tmpdir(), 'rms-view-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const project = join(home, 'code', 'shop');
  mkdirSync(join(home, '.roo-code'), { recursive: true });
  mkdirSync(project, { recursive: true });
  return { home, project };
}

test('the view data names files inside the project or home relatively, anything else by its name only', () => {
  const at = { projectRoot: '/srv/p', homeDir: '/home/u' };
  assert.equal(viewPath('/srv/p/.roomodes', at), '.roomodes');
  assert.equal(viewPath('/home/u/.roo-code/modes.yaml', at), '~/.roo-code/modes.yaml');
  assert.equal(viewPath('/etc/roo/modes.yaml', at), '…/modes.yaml');
});

test('the view data holds every mode with its groups and source, the problems at file:line:column, and no path of this machine', async (t) => {
  const { home, project } = place(t);
  writeFileSync(join(home, '.roo-code', 'modes.yaml'), 'customModes:\n  - slug: fetcher\n    name: Fetcher\n    roleDefinition: r\n    groups: [read, web]\n');
  writeFileSync(join(project, '.roomodes'), [
    'customModes:',
    '  - slug: docs',
    '    name: Docs',
    '    roleDefinition: Writes docs.',
    '    description: Keeps the docs',
    '    groups:',
    '      - read',
    '      - - edit',
    '        - fileRegex: ^docs/',
    '          description: docs only',
    '      - - mcp',
    '        - tools: [mcp__github__*]',
    '  - slug: bad',
    '    name: Bad',
    '    groups: [read]',
    '',
  ].join('\n'));
  const cat = await loadCatalogue({ projectRoot: project, configDir: join(home, '.roo-code'), globalModesFile: null, homeDir: home, env: {} });
  const data = buildViewData(cat, { projectRoot: project, homeDir: home });
  assert.equal(data.project, 'shop');
  assert.deepEqual(data.groups, ['read', 'edit', 'browser', 'command', 'mcp', 'modes', 'web'], 'web joins only because a mode has it');
  assert.deepEqual(data.modes.map((m) => [m.slug, m.source, m.file]), [
    ['code', 'builtin', undefined], ['architect', 'builtin', undefined], ['ask', 'builtin', undefined], ['debug', 'builtin', undefined],
    ['orchestrator', 'builtin', undefined], ['docs', 'project', '.roomodes'], ['fetcher', 'global', '~/.roo-code/modes.yaml'],
  ]);
  const docs = data.modes.find((m) => m.slug === 'docs')!;
  assert.equal(docs.line, 2);
  assert.equal(docs.description, 'Keeps the docs');
  assert.deepEqual(docs.groups.edit, { enabled: true, file_regex: '^docs/', description: 'docs only' });
  assert.deepEqual(docs.groups.mcp, { enabled: true, tools: ['mcp__github__*'] });
  assert.deepEqual(docs.groups.command, { enabled: false });
  assert.deepEqual(data.problems.map((p) => [p.file, p.line, p.column, p.slug]), [['.roomodes', 13, 5, 'bad']]);
  assert.equal(data.global_modes_file, '~/.roo-code/modes.yaml');
  const text = JSON.stringify(data) + matrixText(data);
  assert.ok(!text.includes(home), 'no path of this machine');
  assert.match(matrixText(data), /- Docs \(docs\), project \.roomodes: read, edit \(\^docs\/\), mcp/);
  assert.match(matrixText(data), /\.roomodes:13:5: /);
});

test('the static page carries its data in the slot, with no text of a mode able to leave the script element', () => {
  const html = `<p>x</p>${DATA_SLOT}<script>run()</script>`;
  const evil = '</script><script>alert(1)</script><!-- \u2028';
  const data = { project: 'p', groups: ['read'], modes: [{ slug: 's', name: evil, source: 'project' as const, groups: {} }], problems: [] };
  const page = staticPage(html, data);
  assert.equal(page.split('</script>').length, 3, 'only the two real script ends');
  assert.ok(!page.includes('<!--'));
  const slot = /<script type="application\/json" id="view-data">(.*?)<\/script>/s.exec(page)![1]!;
  assert.deepEqual(JSON.parse(slot), data);
  // A replacement pattern in the data ($&, $') is text, not a command to the replacer.
  assert.ok(staticPage(html, { ...data, project: "$&$'" }).includes('"project":"$&$\'"'));
});

test('the built page is one file that loads nothing: inline script and style, an empty data slot', () => {
  const page = readFileSync(VIEW_PAGE, 'utf8');
  assert.deepEqual(selfContainedProblems(page), []);
  assert.equal(page.split(DATA_SLOT).length, 2, 'one empty data slot');
  assert.equal((page.match(/<script\b/g) ?? []).length, 2, 'the data slot and the one inline script');
  assert.equal((page.match(/<style\b/g) ?? []).length, 1);
  assert.match(page, /<table id="grid" role="grid"/);
});

test('the page builder refuses what would load from elsewhere or leave its element', () => {
  const template = '<style>/*STYLE*/</style><script>/*SCRIPT*/</script>';
  assert.match(assemble(template, 'a{color:red}', 'go();'), /<style>a\{color:red\}<\/style><script>go\(\);<\/script>/);
  for (const [css, js] of [['a{background:url(x.png)}', ''], ['@import "x.css";', ''], ['', 'fetch("/x")'], ['', 'const u = "https://example.com"'], ['', 'const s = "</script>"'], ['</style>', '']]) {
    assert.throws(() => assemble(template, css, js), ViewBuildError, `${css}${js}`);
  }
  assert.throws(() => assemble('<style></style>', '', ''), /STYLE\*\/ exactly once/);
});

test('a client offers the view only with the extension and its content type', () => {
  assert.equal(offersApps({ extensions: { [UI_EXTENSION]: { mimeTypes: [VIEW_MIME] } } }), true);
  assert.equal(offersApps({ extensions: { [UI_EXTENSION]: { mimeTypes: ['text/html', VIEW_MIME] } } }), true);
  for (const caps of [{}, { extensions: {} }, { extensions: { [UI_EXTENSION]: {} } }, { extensions: { [UI_EXTENSION]: { mimeTypes: ['text/html'] } } },
    { extensions: { [UI_EXTENSION]: { mimeTypes: VIEW_MIME } } }, { extensions: { [UI_EXTENSION]: true } }, { experimental: { [UI_EXTENSION]: { mimeTypes: [VIEW_MIME] } } }]) {
    assert.equal(offersApps(caps), false, JSON.stringify(caps));
  }
});

test('the view\'s tools name its URI both ways; only the app tools are hidden from the model', () => {
  for (const [name, who] of Object.entries(VIEW_AUDIENCE)) {
    const meta = toolMeta(name) as { ui: { resourceUri: string; visibility?: string[] }; 'ui/resourceUri': string };
    assert.equal(meta.ui.resourceUri, meta['ui/resourceUri']);
    assert.deepEqual(meta.ui.visibility, who === 'app' ? ['app'] : undefined);
  }
  assert.equal(toolMeta('create_task'), undefined);
});
