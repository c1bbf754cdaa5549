// Unit tests of the shared depth check (src/rpc/json-bounds.ts): exact depths, early stop, and no
// recursion however deep the value is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { depthMessage, MAX_JSON_DEPTH, nestingDepth, tooDeep } from '../../src/rpc/json-bounds.js';

/** A value nested `n` levels deep, built without recursion. */
function nested(n: number, leaf: unknown = 1): unknown {
  let v: unknown = leaf;
  for (let i = 0; i < n; i++) v = i % 2 === 0 ? [v] : { a: v };
  return v;
}

test('measures the nesting of arrays and objects; scalars are 0', () => {
  for (const scalar of [null, 0, 'x', true, undefined]) assert.equal(nestingDepth(scalar), 0);
  assert.equal(nestingDepth([]), 1);
  assert.equal(nestingDepth({}), 1);
  assert.equal(nestingDepth({ a: [1, { b: [] }], c: 'x' }), 4);
  assert.equal(nestingDepth([[1], [[2]], []]), 3, 'the deepest branch counts, wherever it is');
  assert.equal(nestingDepth(nested(MAX_JSON_DEPTH)), MAX_JSON_DEPTH);
});

test('tooDeep is true just past the bound, and for a million levels without overflowing the stack', () => {
  assert.equal(tooDeep(nested(MAX_JSON_DEPTH)), false);
  assert.equal(tooDeep(nested(MAX_JSON_DEPTH + 1)), true);
  assert.equal(tooDeep(nested(1_000_000)), true);
  assert.equal(tooDeep(JSON.parse(`${'['.repeat(200_000)}${']'.repeat(200_000)}`)), true);
  assert.equal(tooDeep(nested(5), 4), true, 'a custom bound');
});

test('stops once past the bound instead of walking the whole value', () => {
  const wide = Array.from({ length: 100_000 }, () => nested(3));
  assert.equal(nestingDepth(wide), 4);
  assert.ok(nestingDepth(nested(50_000), 10) > 10);
  assert.ok(nestingDepth(nested(50_000), 10) <= 11, 'it returns as soon as the bound is passed');
});

test('every refusal uses one wording', () => {
  assert.equal(depthMessage('the message'), 'the message nests deeper than 1000 levels');
  assert.equal(depthMessage('its payload', 5), 'its payload nests deeper than 5 levels');
});
