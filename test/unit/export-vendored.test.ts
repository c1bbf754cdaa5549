import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { packageVersion, readVendored, sha256, staleness, vendoredFile } from '../../src/export/vendored.js';
import { writtenByExport } from '../../src/export/source.js';

test('a vendored file carries the export mark, the version and the hash of the bundle it holds', async () => {
  const built = readFileSync(new URL('../../dist/plugin-decision.cjs', import.meta.url), 'utf8');
  const v = await vendoredFile('plugin-decision.cjs', 'the hook');
  const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  assert.equal(v.version, version);
  assert.equal(await packageVersion(), version);
  assert.equal(v.sha256, sha256(built));
  const [first, second, ...rest] = v.text.split('\n');
  assert.equal(first, `// Exported by roo-modes-server ${version} (the hook); export again rather than editing.`);
  assert.equal(second, `// sha256 of the rest of this file: ${v.sha256}`);
  assert.equal(rest.join('\n'), built, 'the bundle follows unchanged');
  assert.ok(writtenByExport(v.text), 'a re-export knows it as its own');
  assert.deepEqual(readVendored(v.text), { version, sha256: v.sha256, intact: true });
  await assert.rejects(vendoredFile('no-such-bundle.cjs', 'x'), /ENOENT/);
});

test('a changed, older or headless vendored file is told apart, in words', async () => {
  const v = await vendoredFile('plugin-decision.cjs', 'the hook');
  const edited = v.text.replace("'use strict';", "'use strict'; /* patched */");
  assert.equal(readVendored(edited)!.intact, false);
  assert.match(staleness(edited, v), /changed after export .* wrote it/);
  const older = v.text.replace(` ${v.version} (`, ' 0.0.1 (');
  assert.equal(readVendored(older)!.version, '0.0.1');
  assert.match(staleness(older, v), new RegExp(`from version 0\\.0\\.1; this export writes ${v.version.replace(/\./g, '\\.')}`));
  const other = { ...v, sha256: 'f'.repeat(64) };
  assert.match(staleness(v.text, other), /its hash is [0-9a-f]{12}…; this export writes f{12}…/);
  assert.equal(readVendored('// something else\nmodule.exports = {};\n'), null);
  assert.match(staleness('module.exports = {};\n', v), /no version and hash header/);
});
