// Holds every tool schema, as tools/list serves it, to rules that every client's validator and every
// model provider's function calling accept, and to one handler in one family table. It never checks what a tool does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readToolSpecs, ToolListing, type ToolSpec } from '../../src/mcp/tools.js';
import { portabilityProblems } from '../schema-portability.js';
import { compileSchema } from '../../src/schema/validate.js';
import { MODE_TOOLS } from '../../src/mcp/mode-tools.js';
import { EXCHANGE_TOOLS } from '../../src/mcp/exchange-tools.js';
import { AUTHORING_TOOLS } from '../../src/mcp/authoring-tools.js';
import { MODESET_TOOLS } from '../../src/modesets/tools.js';
import { IPC_TOOLS } from '../../src/ipc/tools.js';
import { VIEW_TOOLS } from '../../src/mcp/view-tools.js';

const specs = await readToolSpecs();

/** The tools exactly as served on the newest revision, in both error styles. */
function served(toolErrors: 'jsonrpc' | 'result'): ToolSpec[] {
  const listing = new ToolListing(specs, { pageSize: 1000, toolErrors, protocolVersion: () => '2025-11-25' });
  // As a client with MCP Apps sees them: the modes view's own tools too.
  return (JSON.parse(listing.list({}, '2025-11-25', true).json) as { tools: ToolSpec[] }).tools;
}

for (const toolErrors of ['jsonrpc', 'result'] as const) {
  test(`every served tool schema is portable (server.tool_errors "${toolErrors}")`, () => {
    const tools = served(toolErrors);
    assert.equal(tools.length, specs.size, 'every tool, roo_ipc_* and the view\'s included, is checked');
    const problems: string[] = [];
    for (const tool of tools) {
      if (tool.inputSchema.type !== 'object') problems.push(`${tool.name}.inputSchema: the top level must be an object`);
      problems.push(...portabilityProblems(tool.inputSchema, `${tool.name}.inputSchema`));
      assert.ok(tool.outputSchema, `${tool.name} has an outputSchema`);
      problems.push(...portabilityProblems(tool.outputSchema, `${tool.name}.outputSchema`));
    }
    assert.deepEqual(problems, []);
  });
}

test('the walker finds each kind of unportable schema', () => {
  const bad = {
    type: 'object',
    properties: {
      nullable: { type: ['string', 'null'], description: 'd' },
      nothing: { type: 'null', description: 'd' },
      untyped: { description: 'd' },
      bare: { type: 'string' },
      list: { type: 'array', description: 'd' },
      ref: { $ref: '#/x', type: 'string', description: 'd' },
      nested: { type: 'array', description: 'd', items: { anyOf: [{ type: 'string' }, { description: 'no type' }] } },
    },
    required: ['missing'],
  };
  assert.deepEqual(portabilityProblems(bad, 's'), [
    's.properties.nullable: type is an array (["string","null"]); use anyOf or leave the field out',
    's.properties.nothing: type "null" (null is not portable: leave the field out instead)',
    's.properties.untyped: no type',
    's.properties.bare: no description',
    's.properties.list: an array without items',
    's.properties.ref: keyword $ref is not in the portable subset',
    's.properties.nested.items.anyOf[1]: no type',
    's: requires missing, which it does not define',
  ]);
});

test('a value with two shapes (anyOf) still validates both and refuses others', () => {
  const check = compileSchema(specs.get('orchestrator_mode_create')!.inputSchema);
  const args = (task_distribution: unknown) => ({ mode_name: 'x', mode_settings: { task_distribution } });
  assert.deepEqual(check(args('balanced')), []);
  assert.deepEqual(check(args({ architect: 2, code: 3 })), []);
  assert.notDeepEqual(check(args(5)), []);
  assert.notDeepEqual(check(args(['balanced'])), []);
});

test('every tool schema has exactly one handler, in exactly one family table, and every handler a schema', () => {
  const tables = { MODE_TOOLS, EXCHANGE_TOOLS, AUTHORING_TOOLS, MODESET_TOOLS, IPC_TOOLS, VIEW_TOOLS };
  const owners = new Map<string, string[]>();
  for (const [table, tools] of Object.entries(tables)) {
    for (const name of Object.keys(tools)) owners.set(name, [...(owners.get(name) ?? []), table]);
  }
  assert.deepEqual([...owners.keys()].sort(), [...specs.keys()].sort());
  assert.deepEqual([...owners].filter(([, in_]) => in_.length > 1), [], 'a tool in two tables');
  // services.ts offers the mode-set family, loaded on first call, under the orchestrator_mode_* schemas.
  assert.deepEqual(Object.keys(MODESET_TOOLS).sort(), [...specs.keys()].filter((name) => name.startsWith('orchestrator_mode_')));
});
