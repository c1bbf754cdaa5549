// The committed package-lock.json agrees with package.json, so `npm ci` installs what package.json
// asks for and `npm install` leaves a fresh clone clean: npm copies the root package's name,
// version, licence, bin, engines and dependency ranges into the lockfile's root entry, and a
// change to one of them in package.json alone makes the lockfile stale.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const read = (name: string): Record<string, any> => JSON.parse(readFileSync(fileURLToPath(new URL(`../../${name}`, import.meta.url)), 'utf8'));

test('package-lock.json is current with package.json', () => {
  const pkg = read('package.json');
  const lock = read('package-lock.json');
  assert.equal(lock.name, pkg.name);
  assert.equal(lock.version, pkg.version);
  const root = lock.packages[''];
  for (const field of ['name', 'version', 'license', 'bin', 'engines', 'dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']) {
    assert.deepEqual(root[field], pkg[field], `the lockfile's root entry has package.json's ${field} (run npm install and commit package-lock.json)`);
  }
  // Each dev dependency is pinned exactly, and the lockfile installs that very version.
  for (const [name, wanted] of Object.entries(pkg.devDependencies as Record<string, string>)) {
    assert.match(wanted, /^\d+\.\d+\.\d+$/, `${name} is pinned to one version`);
    assert.equal(lock.packages[`node_modules/${name}`]?.version, wanted, `the lockfile installs ${name}@${wanted}`);
  }
});

test('every dependency with an install script is settled in allowScripts, so npm ci prints no install-scripts warning', () => {
  const pkg = read('package.json');
  const lock = read('package-lock.json');
  const withScripts = Object.entries(lock.packages as Record<string, { hasInstallScript?: boolean }>)
    .filter(([where, entry]) => where !== '' && entry.hasInstallScript === true)
    .map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length));
  const settled = Object.keys(pkg.allowScripts ?? {}).map((key) => key.replace(/(?<=.)@[^@]*$/, ''));
  assert.deepEqual(withScripts.filter((name) => !settled.includes(name)), []);
});
