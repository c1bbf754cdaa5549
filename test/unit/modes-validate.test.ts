import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateModeDocument, validateModeEntry } from '../../src/modes/validate-mode.js';
import { fileRegexProblem, unsafeRegexReason } from '../../src/modes/regex-safety.js';

const base = { slug: 'docs', name: 'Docs', roleDefinition: 'Writes docs.', groups: ['read'] };
const problems = (entry: unknown): string[] => {
  const r = validateModeEntry(entry);
  return r.ok ? [] : r.problems;
};
const accepts = (entry: unknown): void => assert.deepEqual(problems(entry), []);
const refuses = (entry: unknown, pattern: RegExp): void => {
  const p = problems(entry);
  assert.ok(p.some((m) => pattern.test(m)), `expected ${pattern} in ${JSON.stringify(p)}`);
};

test('accepts a minimal mode and normalises it, dropping unknown keys and naming them', () => {
  const r = validateModeEntry({ ...base, rulesFiles: [], source: 'project', enabled: true });
  assert.ok(r.ok);
  assert.deepEqual(r.mode, { slug: 'docs', name: 'Docs', roleDefinition: 'Writes docs.', groups: ['read'], declaredSource: 'project' });
  assert.deepEqual(r.unknownKeys, ['enabled']);
});

test('accepts the dialects: Zoo web group and allowedMcpServers, Kilo iconName and organization source', () => {
  const r = validateModeEntry({ ...base, groups: ['read', 'web'], allowedMcpServers: ['github'], iconName: 'codicon-globe', source: 'organization' });
  assert.ok(r.ok);
  assert.deepEqual(r.mode, {
    slug: 'docs', name: 'Docs', roleDefinition: 'Writes docs.', groups: ['read', 'web'],
    allowedMcpServers: ['github'], iconName: 'codicon-globe', declaredSource: 'organization',
  });
  assert.deepEqual(r.unknownKeys, []);
  refuses({ ...base, allowedMcpServers: 'github' }, /^allowedMcpServers: must be a list/);
  refuses({ ...base, allowedMcpServers: [''] }, /^allowedMcpServers: must be a list/);
  refuses({ ...base, iconName: 3 }, /^iconName: must be a string/);
  // An unknown declared source is ignored, as before the dialects: real files carry odd ones.
  const odd = validateModeEntry({ ...base, source: 'string' });
  assert.ok(odd.ok && odd.mode.declaredSource === undefined);
});

test('unknown keys give one warning per file, naming the keys and the modes, and skip nothing', () => {
  const r = validateModeDocument({ customModes: [{ ...base, inputSpec: 1 }, { ...base, slug: 'b', inputSpec: 2, notes: 'n' }] }, 'f');
  assert.equal(r.modes.length, 2);
  assert.deepEqual(r.issues, []);
  assert.equal(r.warnings.length, 1);
  assert.match(r.warnings[0]!.message, /inputSpec, notes \(in docs, b\)/);
});

test('keeps the optional texts when they are strings', () => {
  const r = validateModeEntry({ ...base, whenToUse: 'w', description: 'd', customInstructions: 'c' });
  assert.ok(r.ok);
  assert.equal(r.mode.whenToUse, 'w');
  assert.equal(r.mode.description, 'd');
  assert.equal(r.mode.customInstructions, 'c');
});

test('refuses slugs outside letters, digits and dashes', () => {
  for (const slug of ['has space', 'under_score', 'dot.ted', '', 'ünï', 42]) refuses({ ...base, slug }, /^slug:/);
  refuses({ ...base, slug: undefined }, /slug: required/);
  accepts({ ...base, slug: 'A-1-b' });
});

test('refuses an empty or missing name and roleDefinition', () => {
  refuses({ ...base, name: '' }, /^name:/);
  refuses({ ...base, name: undefined }, /name: required/);
  refuses({ ...base, roleDefinition: 7 }, /^roleDefinition:/);
  refuses({ ...base, roleDefinition: undefined }, /roleDefinition: required/);
});

test('refuses optional texts that are not strings, null included', () => {
  refuses({ ...base, whenToUse: null }, /^whenToUse:/);
  refuses({ ...base, description: 3 }, /^description:/);
  refuses({ ...base, customInstructions: ['a'] }, /^customInstructions:/);
});

test('refuses missing groups, unknown groups and duplicates', () => {
  refuses({ ...base, groups: undefined }, /groups: required/);
  refuses({ ...base, groups: 'read' }, /groups: must be a list/);
  refuses({ ...base, groups: ['read', 'execute'] }, /unknown tool group "execute"/);
  refuses({ ...base, groups: ['read', ['read', {}]] }, /listed twice/);
  accepts({ ...base, groups: [] });
  accepts({ ...base, groups: ['read', 'edit', 'browser', 'command', 'mcp', 'modes'] });
});

test('checks group options: shape, fileRegex, description and the mcp tools list', () => {
  accepts({ ...base, groups: [['edit', { fileRegex: '\\.md$', description: 'Markdown' }]] });
  accepts({ ...base, groups: [['command', {}]] });
  accepts({ ...base, groups: [['edit', { fileRegex: '' }]] });
  accepts({ ...base, groups: [['mcp', { tools: ['mcp__github__*', 'mcp__fs__read'] }]] });
  refuses({ ...base, groups: [['edit']] }, /exactly \[name, \{options\}\]/);
  refuses({ ...base, groups: [['edit', {}, 'x']] }, /exactly/);
  refuses({ ...base, groups: [['edit', null]] }, /must be a mapping/);
  refuses({ ...base, groups: [['edit', { fileRegex: 5 }]] }, /fileRegex: must be a string/);
  refuses({ ...base, groups: [['edit', { description: false }]] }, /description: must be a string/);
  refuses({ ...base, groups: [['edit', { fileRegex: '(' }]] }, /not a valid regular expression/);
  refuses({ ...base, groups: [['read', { tools: ['x'] }]] }, /only meaningful on the mcp group/);
  refuses({ ...base, groups: [['mcp', { tools: 'mcp__*' }]] }, /tools: must be a list/);
  refuses({ ...base, groups: [['mcp', { tools: [1] }]] }, /tools: must be a list/);
});

test('keeps group options it knows and drops the rest', () => {
  const r = validateModeEntry({ ...base, groups: [['edit', { fileRegex: 'a', extra: 1 }]] });
  assert.ok(r.ok);
  assert.deepEqual(r.mode.groups, [['edit', { fileRegex: 'a' }]]);
});

test('refuses catastrophic regexes with a clear reason', () => {
  for (const src of ['(a+)+', '(a*)*', '(a|aa)+', '(.*a){20}', '((ab)*c)+', '(x+x+)+y', '(?:a|a)*', '([a-z]+)*$', '(a|)+']) {
    assert.ok(unsafeRegexReason(src), `${src} should be refused`);
  }
  assert.match(fileRegexProblem('(a+)+')!, /nested quantifiers/);
  assert.match(fileRegexProblem('(a|aa)+')!, /alternatives that can match the same text/);
  assert.match(fileRegexProblem('(a)\\1')!, /back-references/);
  assert.match(fileRegexProblem('(?<x>a)\\k<x>')!, /back-references/);
  assert.match(fileRegexProblem('a'.repeat(3000))!, /longer than/);
  refuses({ ...base, groups: [['edit', { fileRegex: '(a+)+$' }]] }, /nested quantifiers/);
});

test('refuses every pattern V8\'s linear-time engine cannot run, saying what and where', () => {
  const cases: [string, RegExp][] = [
    ['(?=.*.*.*.*.*.*x)', /lookahead \(\?= at position 1/],
    ['(?!.*.*.*.*.*.*x)', /negative lookahead \(\?! at position 1/],
    ['docs/(?<=s/)a', /lookbehind \(\?<= at position 6/],
    ['a(?<!b)c', /negative lookbehind \(\?<! at position 2/],
    // A real pattern from the corpus (051): Roo accepts it, but its time cannot be bounded.
    ['.*/handoffs/(?!0-system/chat_history/).*\\.md$|.*/[0-9]+-.*?/.*\\.md$', /negative lookahead \(\?! at position 13/],
    ['[a-z]{2,20}\\.md$', /count \{2,20\} at position 6 is above 16/],
    ['a{17}', /count \{17\} at position 2/],
    ['x{20,}', /count \{20,\}/],
    ['(a)\\1', /back-references/],
  ];
  for (const [src, why] of cases) assert.match(fileRegexProblem(src) ?? 'accepted', why, src);
  // Inline flags compile in newer V8 and in Bun (where the exported OpenCode plugin decides), not in
  // Node 20: the scan refuses them itself, so every runtime refuses them.
  assert.match(unsafeRegexReason('docs/(?i:readme)\\.md$')!, /inline flags \(\?i: at position 6/);
  assert.match(unsafeRegexReason('(?-i:a)')!, /inline flags \(\?-i: at position 1/);
  assert.ok(fileRegexProblem('(?i:a)'));
  for (const src of ['a{16}', 'a{0,16}', 'a{2,}', '(?<name>x)\\.md$', '(?:docs|notes)/.*', '\\[?=\\]', '[(?=]x']) {
    assert.equal(fileRegexProblem(src), null, src);
  }
});

test('accepts the file regexes real mode files use', () => {
  for (const src of [
    '\\.md$', '', '.*', '\\.(md|mdx|txt|rst|adoc)$|README$|CHANGELOG$', '^(.0kid/.*|.0kid/.*)\\.(md|txt)$',
    '.*/[0-9]+-.*?/.*\\.md$', '\\.(css|scss|styles\\.(ts|tsx|js|jsx)|woff2?)$',
    '[(+*]\\d{2,3}', '(\\.roomodes$|\\.roo/.*\\.xml$|\\.yaml$)', 'a{', '(md|txt)+', '\\[1\\]',
  ]) assert.equal(fileRegexProblem(src), null, src);
});

test('a document keeps good modes, skips bad ones with their line, and keeps the first of a duplicate slug', () => {
  const good1 = { ...base, slug: 'one' };
  const bad = { ...base, slug: 'two', groups: ['nope'] };
  const dup = { ...base, slug: 'one', name: 'Second' };
  const good2 = { ...base, slug: 'three' };
  const doc = { customModes: [good1, bad, 'text', dup, good2] };
  const positions = new WeakMap<object, { line: number; column: number }>([
    [doc, { line: 1, column: 1 }], [doc.customModes, { line: 2, column: 3 }],
    [good1, { line: 3, column: 5 }], [bad, { line: 10, column: 5 }], [dup, { line: 20, column: 5 }], [good2, { line: 30, column: 5 }],
  ]);
  const r = validateModeDocument(doc, '/p/.roomodes', positions);
  assert.deepEqual(r.modes.map((m) => [m.mode.slug, m.mode.name, m.line]), [['one', 'Docs', 3], ['three', 'Docs', 30]]);
  assert.equal(r.issues.length, 3);
  assert.deepEqual(r.issues.map((i) => [i.line, i.slug]), [[10, 'two'], [2, undefined], [20, 'one']]);
  assert.match(r.issues[0]!.message, /mode "two" was skipped: groups\[0\]: unknown tool group "nope"/);
  assert.match(r.issues[1]!.message, /customModes\[2\] was skipped: a mode must be a mapping/);
  assert.match(r.issues[2]!.message, /defined again \(first at line 3\); the first definition is kept/);
  assert.ok(r.issues.every((i) => i.file === '/p/.roomodes'));
  assert.deepEqual(r.notices, []);
});

test('documents without a customModes list define no modes and raise only a notice', () => {
  for (const doc of [null, 'text', 42, [], {}, { customModes: null }, { customModes: 'x' }, { other: [] }]) {
    const r = validateModeDocument(doc, 'f');
    assert.deepEqual(r.modes, []);
    assert.deepEqual(r.issues, []);
    assert.equal(r.notices.length, 1, JSON.stringify(doc));
  }
  assert.deepEqual(validateModeDocument({ customModes: [] }, 'f'), { modes: [], issues: [], notices: [], warnings: [] });
});
