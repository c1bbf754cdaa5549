// The tool registry's start-up checks: every offered tool has exactly one handler.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ToolListing, ToolRegistry, type ToolSpec } from '../../src/mcp/tools.js';

const spec = (name: string): ToolSpec => ({ name, description: name, inputSchema: { type: 'object' } } as unknown as ToolSpec);
const listing = (...names: string[]): ToolListing =>
  new ToolListing(new Map(names.map((n) => [n, spec(n)])), { pageSize: 50, toolErrors: 'jsonrpc', protocolVersion: () => '2025-11-25' });
const registry = (l: ToolListing, families: Record<string, () => never>[]): ToolRegistry => new ToolRegistry({
  listing: l, families, compile: () => () => [], toolErrors: 'jsonrpc', protocolVersion: () => '2025-11-25', progress: () => {},
});
const handler = (): never => { throw new Error('not called'); };

test('a tool named by two families is refused at start, not left to the last one', () => {
  assert.throws(() => registry(listing('a', 'b'), [{ a: handler }, { a: handler, b: handler }]), /tool a has two handlers/);
  assert.deepEqual(registry(listing('a', 'b'), [{ a: handler }, { b: handler }]).names(), ['a', 'b']);
});

test('a handler for a tool that is not offered, and an offered tool without a handler, are refused', () => {
  assert.throws(() => registry(listing('a'), [{ a: handler, z: handler }]), /tool z has a handler but is not offered/);
  assert.throws(() => registry(listing('a', 'b'), [{ a: handler }]), /tool b is offered but has no handler/);
});
