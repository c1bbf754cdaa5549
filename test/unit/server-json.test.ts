// server.json, the MCP Registry's entry for this package: valid by the registry's published schema
// (test/fixtures/mcp-registry/, see PROVENANCE.md), and in step with package.json (name, version,
// mcpName, repository) and with the variables the server reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compileSchema, type JsonSchema } from '../../src/schema/validate.js';
import { LOG_LEVELS } from '../../src/log.js';

const read = (rel: string): Record<string, any> => JSON.parse(readFileSync(fileURLToPath(new URL(rel, import.meta.url)), 'utf8'));
const server = read('../../server.json');
const pkg = read('../../package.json');
const schema = read('../fixtures/mcp-registry/server.schema.json');

/**
 * The schema with its `example` annotations removed. The registry generates the schema from an
 * OpenAPI file, whose singular `example` is no JSON-Schema keyword; our validator refuses keywords
 * it does not know rather than skip them, and `example` constrains nothing, so it is the one thing
 * taken out (a key of that name under `properties` would be a property and is kept).
 */
function withoutExamples(node: unknown, underProperties = false): unknown {
  if (Array.isArray(node)) return node.map((n) => withoutExamples(n));
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(Object.entries(node)
    .filter(([k]) => underProperties || k !== 'example')
    .map(([k, v]) => [k, withoutExamples(v, !underProperties && k === 'properties')]));
}

const validate = compileSchema(withoutExamples(schema) as JsonSchema);

test('our validator refuses the published schema only for its OpenAPI `example` annotations', () => {
  assert.throws(() => compileSchema(schema as JsonSchema), (err: Error) => err.name === 'SchemaCompileError' && /unsupported keyword "example"/.test(err.message));
  const stripped = JSON.stringify(withoutExamples(schema));
  assert.doesNotMatch(stripped, /"example":/);
  // Everything else is kept: the constraints the registry checks are all still there.
  for (const kw of ['"pattern":', '"maxLength":', '"required":', '"not":', '"anyOf":', '"allOf":']) assert.ok(stripped.includes(kw), kw);
});

test('server.json is valid by the MCP Registry\'s server.json schema', () => {
  assert.equal(server.$schema, schema.$id, 'server.json names the schema revision kept in the fixture');
  assert.deepEqual(validate(server, ''), []);
});

test('the validator does check: a wrong name, a long description, a range version and a missing transport are refused', () => {
  const broken = (change: (s: Record<string, any>) => void): Record<string, any> => { const s = structuredClone(server); change(s); return s; };
  const fails = (s: Record<string, any>, where: RegExp): void => {
    const issues = validate(s, '');
    assert.ok(issues.some((i) => where.test(`${i.path} ${i.message}`)), JSON.stringify(issues));
  };
  fails(broken((s) => { s.name = 'roo-modes-server'; }), /name/);
  fails(broken((s) => { s.description = 'x'.repeat(101); }), /description/);
  fails(broken((s) => { s.packages[0].version = 'latest'; }), /version/);
  fails(broken((s) => { delete s.packages[0].transport; }), /transport/);
});

test('server.json agrees with package.json: name is mcpName, the versions match, the package is this one on npm', () => {
  assert.equal(server.name, pkg.mcpName);
  assert.equal(server.version, pkg.version);
  const [npm, ...others] = server.packages;
  assert.deepEqual(others, []);
  assert.equal(npm.registryType, 'npm');
  assert.equal(npm.registryBaseUrl, 'https://registry.npmjs.org');
  assert.equal(npm.identifier, pkg.name);
  assert.equal(npm.version, pkg.version);
  assert.deepEqual(npm.transport, { type: 'stdio' });
});

test('the registry name is io.github.<owner>/<repository> of package.json\'s repository, which server.json names too', () => {
  const m = /^git\+(https:\/\/github\.com\/([^/]+)\/([^/]+?))\.git$/.exec(pkg.repository.url);
  assert.ok(m, pkg.repository.url);
  assert.equal(pkg.mcpName, `io.github.${m[2]}/${m[3]}`);
  assert.deepEqual(server.repository, { url: m[1], source: 'github' });
  assert.equal(server.websiteUrl, pkg.homepage);
  // `format: uri` is an annotation to our validator: checked here instead.
  for (const url of [server.$schema, server.websiteUrl, server.repository.url, server.packages[0].registryBaseUrl]) assert.equal(new URL(url).protocol, 'https:', url);
});

test('the environment variables server.json offers are ones the server reads, the log levels its own', () => {
  const config = readFileSync(fileURLToPath(new URL('../../src/config.ts', import.meta.url)), 'utf8');
  const vars = server.packages[0].environmentVariables as { name: string; choices?: string[] }[];
  assert.ok(vars.length > 0);
  for (const v of vars) assert.ok(config.includes(`'${v.name}'`), `${v.name} is read in src/config.ts`);
  assert.deepEqual(vars.find((v) => v.name === 'ROO_MODES_LOG_LEVEL')?.choices, [...LOG_LEVELS]);
});
