// The files export copies from dist/ (the check and the plugin's decision code): one header, one
// reader, one way of telling a copy stale.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { VENDORED, builtVendored, packageVersion, readVendored, sha256, staleness, vendoredText, type VendoredKind } from '../../src/export/vendored.js';
import { writtenByExport } from '../../src/export/source.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const KINDS = Object.keys(VENDORED) as VendoredKind[];

test('each built vendored file carries its name, the version, the export mark and the hash of the code below its two header lines', async () => {
  assert.equal(await packageVersion(), VERSION);
  for (const kind of KINDS) {
    const built = readFileSync(new URL(`../../dist/${VENDORED[kind].bundle}`, import.meta.url), 'utf8');
    const { text, header } = await builtVendored(kind);
    assert.equal(text, built, `${kind}: export copies the built file byte for byte`);
    const [first, second, ...rest] = built.split('\n');
    const code = rest.join('\n');
    assert.equal(first, `// ${VENDORED[kind].name} ${VERSION} sha256:${sha256(code)} Exported by roo-modes-server; export again rather than editing.`);
    assert.equal(second, `// ${VENDORED[kind].about}`);
    assert.deepEqual(header, { name: VENDORED[kind].name, version: VERSION, sha256: sha256(code), intact: true });
    assert.equal(vendoredText(kind, VERSION, code), built, `${kind}: the build wrote what vendoredText writes`);
    assert.ok(writtenByExport(built), `${kind}: a re-export knows it as its own`);
  }
});

test('builtVendored fails, saying so, without a built file or with one whose header does not match', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'rms-vendored-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const url = pathToFileURL(`${root}/`);
  await assert.rejects(builtVendored('decision', url), /no dist\/plugin-decision\.cjs \(run npm run build\)/);
  mkdirSync(join(root, 'dist'));
  writeFileSync(join(root, 'dist', 'plugin-decision.cjs'), "'use strict';\n");
  await assert.rejects(builtVendored('decision', url), /dist\/plugin-decision\.cjs has no intact roo-modes-decision header/);
  writeFileSync(join(root, 'dist', 'plugin-decision.cjs'), `${vendoredText('decision', '1.0.0', 'a\n')}b\n`);
  await assert.rejects(builtVendored('decision', url), /no intact roo-modes-decision header/);
  writeFileSync(join(root, 'dist', 'plugin-decision.cjs'), vendoredText('decision', '1.0.0', 'a\n'));
  assert.equal((await builtVendored('decision', url)).header.version, '1.0.0');
});

test('a copy edited, of another version or hash, with its comments changed, headless or of the other kind is told apart, in words', async () => {
  for (const kind of KINDS) {
    const { text: fresh, header } = await builtVendored(kind);
    const name = VENDORED[kind].name;
    const h = header.sha256.slice(0, 12);
    const code = '"use strict";\nmodule.exports = {};\n';
    const other = KINDS.find((k) => k !== kind)!;
    const cases: [string, RegExp][] = [
      [fresh.replace(/(["'])use strict\1;/, '"use strict"; /* mine */'), new RegExp(`^edited since export ${VERSION.replace(/\./g, '\\.')} wrote it: its code no longer hashes to its sha256:${h}$`)],
      [vendoredText(kind, '0.0.9', code), new RegExp(`^${name} 0\\.0\\.9 sha256:${sha256(code).slice(0, 12)}; this export writes ${VERSION.replace(/\./g, '\\.')} sha256:${h}$`)],
      [vendoredText(kind, VERSION, code), new RegExp(`^${name} ${VERSION.replace(/\./g, '\\.')} sha256:${sha256(code).slice(0, 12)}; this export writes ${VERSION.replace(/\./g, '\\.')} sha256:${h}$`)],
      [fresh.replace("roo-modes-server's", 'the roo-modes-server'), /^its comment lines were edited$/],
      [code, new RegExp(`^not a ${name} file \\(no ${name} header with a version and a sha256\\)$`)],
      [vendoredText(other, VERSION, code), new RegExp(`^not a ${name} file`)],
    ];
    for (const [old, why] of cases) {
      assert.notEqual(old, fresh, `${kind}: the case differs from the fresh file`);
      assert.match(staleness(old, fresh), why, kind);
    }
    assert.equal(readVendored(cases[0]![0])!.intact, false);
    assert.equal(readVendored(cases[1]![0])!.version, '0.0.9');
    assert.equal(readVendored(code), null);
  }
});
