// The modes view (MCP Apps) over the wire, on every revision: offered to a host that declares the
// extension (capabilities, tools' _meta, the ui:// resource, the view's own tools), every line valid
// against that revision's official schema; and a host without it served exactly as before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, tempDir, type Msg } from './harness.js';
import { LEGACY_REVISIONS, Session, failedWith, idKey, isRecord, loadOfficial, succeeded, validateTranscript, type Revision, type TestCtx } from './official-check.js';

const UI = 'io.modelcontextprotocol/ui';
const MIME = 'text/html;profile=mcp-app';
const VIEW = 'ui://roo-modes/modes';
const PAGE = new URL('../../dist/app/modes-view.html', import.meta.url);
const REVISIONS: readonly Revision[] = [...LEGACY_REVISIONS, '2026-07-28'];

/** A reviewer limited to notes, and a mode skipped for its problems (so the view has one to show). */
const ROOMODES = `customModes:
  - slug: reviewer
    name: 🔍 Reviewer
    roleDefinition: You review changes.
    groups:
      - read
      - - edit
        - fileRegex: \\.md$
          description: Review notes only
  - slug: broken
    name: Broken
    groups: [read, flying]
`;

const WITH_APPS = { extensions: { [UI]: { mimeTypes: [MIME] } } };

/** A server on a fresh project and a session of `rev` whose client declares `capabilities`. */
async function open(t: TestCtx, rev: Revision, capabilities: Record<string, unknown>): Promise<Session> {
  const project = tempDir(t, 'rms-apps-');
  writeFileSync(join(project, '.roomodes'), ROOMODES);
  // Small pages, so the view's entries are seen to page like the rest.
  const config = join(tempDir(t, 'rms-apps-cfg-'), 'config.json');
  writeFileSync(config, JSON.stringify({ server: { page_size: 7 } }));
  const s = startServer(t, { args: ['--project-root', project, '--config', config] });
  if (rev !== '2026-07-28') {
    const init = await s.initialize(rev, capabilities);
    assert.equal(succeeded(init, 'initialize').protocolVersion, rev);
    return new Session(s);
  }
  return new Session(s, {
    'io.modelcontextprotocol/protocolVersion': rev,
    'io.modelcontextprotocol/clientCapabilities': capabilities,
    'io.modelcontextprotocol/clientInfo': { name: 'apps-test', version: '1' },
  });
}

/** A tool result's structured part: structuredContent from 2025-06-18, the seed's metadata before. */
const structured = (res: Msg, what: string): Record<string, unknown> => {
  const r = succeeded(res, what);
  const out = isRecord(r.structuredContent) ? r.structuredContent : r.metadata;
  assert.ok(isRecord(out), `${what}: structured result`);
  return out;
};

function schemaClean(t: TestCtx & { diagnostic(m: string): void }, rev: Revision, session: Session): void {
  const verdict = validateTranscript(loadOfficial(rev), session.s.lines, session.methodOf);
  assert.deepEqual(verdict.failures, [], `every line is valid against the ${rev} schema`);
  t.diagnostic(`${rev}: ${verdict.validated} messages valid`);
}

for (const rev of REVISIONS) {
  test(`${rev}: a host with MCP Apps is offered the modes view, every line valid against the schema`, async (t) => {
    const session = await open(t, rev, WITH_APPS);
    if (rev === '2026-07-28') {
      const caps = succeeded(await session.call('server/discover'), 'discover').capabilities as Record<string, any>;
      assert.deepEqual(caps.extensions[UI], { mimeTypes: [MIME] }, 'server/discover lists the extension');
    } else {
      const init = session.s.messages.find((m) => m.id === 'init')!;
      assert.deepEqual(init.result.capabilities.extensions, { [UI]: { mimeTypes: [MIME] } }, 'initialize answers with the extension');
    }

    const tools = await session.all('tools/list', 'tools') as Record<string, any>[];
    const meta = Object.fromEntries(tools.map((tool) => [tool.name, tool._meta]));
    for (const name of ['list_modes', 'get_mode_info']) {
      assert.deepEqual(meta[name], { ui: { resourceUri: VIEW }, 'ui/resourceUri': VIEW }, `${name} names the view`);
    }
    for (const name of ['mode_matrix', 'try_mode_path']) {
      assert.deepEqual(meta[name], { ui: { resourceUri: VIEW, visibility: ['app'] }, 'ui/resourceUri': VIEW }, `${name} is for the view only`);
    }
    assert.deepEqual(tools.filter((tool) => tool._meta !== undefined).map((tool) => tool.name).sort(), ['get_mode_info', 'list_modes', 'mode_matrix', 'try_mode_path']);

    const resources = await session.all('resources/list', 'resources') as Record<string, unknown>[];
    const view = resources.filter((r) => r.uri === VIEW);
    assert.equal(view.length, 1, 'the view is listed once');
    assert.equal(view[0]!.mimeType, MIME);
    assert.equal(resources.length, 6 * 3 + 1, 'six modes with three resources each, then the view');

    const read = succeeded(await session.call('resources/read', { uri: VIEW }), 'read the view').contents as Record<string, any>[];
    assert.equal(read.length, 1);
    assert.equal(read[0]!.uri, VIEW);
    assert.equal(read[0]!.mimeType, MIME);
    assert.equal(read[0]!.text, readFileSync(PAGE, 'utf8'), 'the page npm run build assembled');
    assert.deepEqual(read[0]!._meta, { ui: { prefersBorder: true } });

    const matrix = structured(await session.tool('mode_matrix'), 'mode_matrix') as Record<string, any>;
    assert.deepEqual(matrix.groups, ['read', 'edit', 'browser', 'command', 'mcp', 'modes']);
    const reviewer = matrix.modes.find((m: { slug: string }) => m.slug === 'reviewer');
    assert.deepEqual(reviewer, {
      slug: 'reviewer', name: '🔍 Reviewer', source: 'project', file: '.roomodes', line: 2,
      groups: {
        read: { enabled: true }, edit: { enabled: true, file_regex: '\\.md$', description: 'Review notes only' },
        browser: { enabled: false }, command: { enabled: false }, mcp: { enabled: false }, modes: { enabled: false }, web: { enabled: false },
      },
    });
    assert.deepEqual(matrix.modes.map((m: { slug: string }) => m.slug), ['code', 'architect', 'ask', 'debug', 'orchestrator', 'reviewer']);
    assert.equal(matrix.problems.length, 1);
    assert.equal(matrix.problems[0].file, '.roomodes');
    assert.equal(matrix.problems[0].line, 10);
    assert.equal(matrix.problems[0].column, 5);
    assert.match(matrix.problems[0].reason, /flying/);

    const allowed = structured(await session.tool('try_mode_path', { mode_slug: 'reviewer', file_path: 'notes/review.md' }), 'allowed');
    assert.equal(allowed.allowed, true);
    const refused = structured(await session.tool('try_mode_path', { mode_slug: 'reviewer', file_path: 'src/app.ts' }), 'refused');
    assert.equal(refused.allowed, false);
    assert.match(refused.reason as string, /can only edit files matching pattern: \\\.md\$ \(Review notes only\)\. Got: src\/app\.ts/);
    const outside = structured(await session.tool('try_mode_path', { mode_slug: 'code', file_path: '../elsewhere.md' }), 'outside');
    assert.equal(outside.allowed, false, 'a path outside the project is refused');
    failedWith(await session.tool('try_mode_path', { mode_slug: 'ghost', file_path: 'a.md' }), -32001, 'unknown mode');

    schemaClean(t, rev, session);
  });

  test(`${rev}: a host without MCP Apps gets exactly the answers it always got`, async (t) => {
    /** The same requests, with the same ids, from clients that declare different capabilities. */
    const transcript = async (capabilities: Record<string, unknown>): Promise<{ lines: string[]; session: Session }> => {
      const session = await open(t, rev, capabilities);
      const answers: Msg[] = [];
      const ask = async (id: string, method: string, params: unknown): Promise<Msg> => {
        session.methodOf.set(idKey(id), method);
        return session.s.call(id, method, session.withMeta(params));
      };
      if (rev === '2026-07-28') answers.push(await ask('d', 'server/discover', {}));
      for (const [id, method, params] of [
        ['t1', 'tools/list', {}], ['r1', 'resources/list', {}], ['rt', 'resources/templates/list', {}],
        ['read', 'resources/read', { uri: VIEW }], ['read-other', 'resources/read', { uri: 'ui://roo-modes/other' }], ['call', 'tools/call', { name: 'try_mode_path', arguments: { mode_slug: 'code', file_path: 'a.md' } }],
        ['matrix', 'tools/call', { name: 'mode_matrix', arguments: {} }],
      ] as const) {
        answers.push(await ask(id, method, params));
      }
      // Every page of both lists.
      for (const [method, first] of [['tools/list', 't1'], ['resources/list', 'r1']] as const) {
        let res = answers.find((a) => a.id === first)!;
        for (let page = 2; isRecord(res.result) && typeof res.result.nextCursor === 'string'; page++) {
          res = await ask(`${first}-${page}`, method, { cursor: res.result.nextCursor });
          answers.push(res);
        }
      }
      const ids = new Set(answers.map((a) => JSON.stringify(a.id)));
      const init = rev === '2026-07-28' ? [] : [session.s.lines[session.s.messages.findIndex((m) => m.id === 'init')]!];
      return { lines: [...init, ...session.s.lines.filter((line) => ids.has(JSON.stringify((JSON.parse(line) as Msg).id)))], session };
    };
    const plain = await transcript({});
    // Another extension, or ours with a content type other than the view's: not a host of this view.
    const other = await transcript({ extensions: { 'io.example/other': {} } });
    const otherType = await transcript({ extensions: { [UI]: { mimeTypes: ['text/html'] } } });
    assert.deepEqual(other.lines, plain.lines);
    assert.deepEqual(otherType.lines, plain.lines);
    // A ui:// URI is echoed only by the errors that answer reading one.
    const text = plain.lines.filter((l) => !['read', 'read-other'].includes((JSON.parse(l) as Msg).id as string)).join('\n');
    // (server/discover describes the server, the extension included, to anyone who asks.)
    const never = ['ui://', '"ui/resourceUri"', '"name":"mode_matrix"', '"name":"try_mode_path"', ...(rev === '2026-07-28' ? [] : [UI, MIME])];
    for (const word of never) assert.ok(!text.includes(word), `${word} never reaches a host without the extension`);
    // The view's tools are unknown there, and not among the available ones an unknown name is told of.
    const byId = (id: string): Msg => plain.session.s.messages.find((m) => m.id === id)!;
    for (const id of ['call', 'matrix']) {
      failedWith(byId(id), -32602, `${id}: the view's tool is unknown`);
      const available = byId(id).error.data.available_tools as string[];
      assert.ok(available.includes('list_modes') && !available.includes('mode_matrix') && !available.includes('try_mode_path'));
    }
    failedWith(byId('read'), rev === '2026-07-28' ? -32602 : -32004, 'the view is no resource');
    assert.equal(JSON.stringify(byId('read').error).replaceAll(VIEW, 'ui://roo-modes/other'), JSON.stringify(byId('read-other').error), 'as unknown as any other ui:// URI');
    // The lists are the ones a host with the extension gets, less the view's entries and _meta.
    const apps = await transcript(WITH_APPS);
    const results = (lines: string[], prefix: string): Record<string, any>[] => lines.map((l) => JSON.parse(l) as Msg)
      .filter((m) => typeof m.id === 'string' && (m.id === prefix || m.id.startsWith(`${prefix}-`))).map((m) => m.result as Record<string, any>);
    const tools = (lines: string[]): unknown[] => results(lines, 't1').flatMap((r) => r.tools as unknown[]);
    const resources = (lines: string[]): unknown[] => results(lines, 'r1').flatMap((r) => r.resources as unknown[]);
    const viewTools = new Set(['mode_matrix', 'try_mode_path']);
    assert.deepEqual(tools(apps.lines).filter((x: any) => !viewTools.has(x.name)).map(({ _meta, ...x }: any) => x), tools(plain.lines));
    assert.deepEqual(resources(apps.lines).filter((x: any) => x.uri !== VIEW), resources(plain.lines));
    if (rev !== '2026-07-28') {
      const init = (lines: string[]): Record<string, any> => JSON.parse(lines[0]!).result;
      const withApps = init(apps.lines);
      delete withApps.capabilities.extensions;
      assert.equal(JSON.stringify(withApps), JSON.stringify(init(plain.lines)), 'initialize: the same answer but for the extension');
    }
    schemaClean(t, rev, plain.session);
  });
}
