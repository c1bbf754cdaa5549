import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SymlinkGuard } from '../../src/modes/confine.js';

test('finds paths that leave the project root through a symlink, existing or not', async (t) => {
  const base = mkdtempSync(join(tmpdir(), 'confine-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const root = join(base, 'project');
  const outside = join(base, 'outside');
  mkdirSync(join(root, 'src'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), 'x');
  symlinkSync(outside, join(root, 'link'));
  symlinkSync(join(root, 'src'), join(root, 'inner'));
  const guard = new SymlinkGuard();
  const leadsOutside = (p: string, r: string): Promise<boolean> => guard.leadsOutside(p, r);
  assert.equal(await leadsOutside('link/secret.txt', root), true);
  assert.equal(await leadsOutside('link/new-file.md', root), true, 'a file not yet created under an escaping link');
  assert.equal(await leadsOutside('inner/app.ts', root), false, 'a link that stays inside is fine');
  assert.equal(await leadsOutside('src/app.ts', root), false);
  assert.equal(await leadsOutside('docs/new/plan.md', root), false, 'missing folders inside the root');
  assert.equal(await leadsOutside('link/../secret.txt', root), true, '`..` after a link climbs from where the link leads');
  assert.equal(await leadsOutside('link/../project/src/app.ts', root), false, 'and may come back inside');
});

test('sees a link created after a check once the short cache has expired', async (t) => {
  const base = mkdtempSync(join(tmpdir(), 'confine-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const root = join(base, 'project');
  mkdirSync(root);
  let clock = 0;
  const guard = new SymlinkGuard(() => clock);
  assert.equal(await guard.leadsOutside('late/x.md', root), false);
  symlinkSync(base, join(root, 'late'));
  clock += 2000;
  assert.equal(await guard.leadsOutside('late/x.md', root), true);
});
