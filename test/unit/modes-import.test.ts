// The import rules as pure functions: rules paths confined (\ as a separator, legacy prefix
// dropped, absolute and .. refused) and a whole import refused before any write on a bad mode.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { confineRulePath, parseImport } from '../../src/authoring/import.js';
import { runExportMode, runImportMode } from '../../src/cli/exchange.js';
import { ValidationError } from '../../src/rpc/errors.js';

test('confineRulePath keeps safe relative paths and names why it refuses the others', () => {
  assert.deepEqual(confineRulePath('a.md'), { path: 'a.md' });
  assert.deepEqual(confineRulePath('sub\\b.md'), { path: 'sub/b.md' });
  assert.deepEqual(confineRulePath('./x//y.md'), { path: 'x/y.md' });
  assert.deepEqual(confineRulePath('rules-old/c.md'), { path: 'c.md' });
  for (const bad of ['../a', 'x/../../a', '..\\a', '/etc/passwd', 'C:\\x', 'c:/x', '', 'a\u0000b', 'rules-x', '.']) {
    const r = confineRulePath(bad);
    if (bad === 'rules-x') { assert.deepEqual(r, { path: 'rules-x' }); continue; }
    assert.ok('reason' in r, `${JSON.stringify(bad)} refused`);
  }
});

test('parseImport accepts the export format, one mode and a marketplace item; refuses bad input as a whole', () => {
  const mode = { slug: 'm', name: 'M', roleDefinition: 'r', groups: ['read'] };
  assert.equal(parseImport(JSON.stringify({ customModes: [mode] })).modes[0]!.config.slug, 'm');
  assert.equal(parseImport(JSON.stringify(mode)).modes[0]!.config.slug, 'm');
  assert.equal(parseImport(JSON.stringify({ type: 'mode', content: 'slug: m\nname: M\nroleDefinition: r\ngroups: []\n' })).modes[0]!.config.slug, 'm');
  assert.throws(() => parseImport('customModes: [\n'), ValidationError);
  assert.throws(() => parseImport(JSON.stringify({ customModes: [mode, mode] })), /appears twice/);
  assert.throws(() => parseImport(JSON.stringify({ customModes: [{ ...mode, rulesFiles: 'x' }] })), /rulesFiles must be a list/);
  assert.throws(() => parseImport(JSON.stringify({ customModes: [] })), /holds no modes/);
  assert.throws(() => parseImport(JSON.stringify([1, 2])), /expected \{customModes/);
});

test('export-mode and import-mode print their usage and refuse bad usage with exit 2', async () => {
  const captured = { out: '', err: '' };
  const io = { out: (s: string) => { captured.out += s; }, err: (s: string) => { captured.err += s; }, env: {} };
  assert.equal(await runExportMode(['--help'], io), 0);
  assert.match(captured.out, /Usage: roo-modes-server export-mode SLUG/);
  assert.equal(await runImportMode(['--help'], io), 0);
  assert.match(captured.out, /Usage: roo-modes-server import-mode FILE/);
  assert.equal(await runExportMode([], io), 2);
  assert.equal(await runImportMode(['a', 'b'], io), 2);
  assert.equal(await runImportMode(['--bogus', 'a'], io), 2);
  assert.match(captured.err, /roo-modes-server import-mode: unknown option "--bogus"/);
});
