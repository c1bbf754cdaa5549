// Unit tests of the bounded id scanner (src/rpc/leading-id.ts) and of the head the line splitter
// keeps for an oversize line (src/rpc/lines.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { leadingId } from '../../src/rpc/leading-id.js';
import { HEAD_BYTES, LineSplitter } from '../../src/rpc/lines.js';

const CASES: [string, string, string | number | null][] = [
  ['id first after jsonrpc', '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"imp', 7],
  ['string id first', '{"id":"abc","jsonrpc":"2.0","method":"x","params":{', 'abc'],
  ['escaped string id', '{"id":"a\\"b\\u0063","method":"x"', 'a"bc'],
  ['spaces everywhere', ' { "jsonrpc" : "2.0" , "id" : -3 , "method" : "x" ', -3],
  ['method before id', '{"jsonrpc":"2.0","method":"tools/call","id":42,"params":{"a":', 42],
  ['params before id, within the head', '{"jsonrpc":"2.0","params":{"a":[1,{"b":"}"}]},"id":"late","method":"m"}', 'late'],
  ['id only, line cut after it', '{"jsonrpc":"2.0","id":9,"params":{"arguments":{"x":"yyyyyy', 9],
  ['number cut by the head end', '{"jsonrpc":"2.0","id":12', null],
  ['string cut by the head end', '{"jsonrpc":"2.0","id":"abc', null],
  ['a response', '{"jsonrpc":"2.0","id":"srv-1","result":{"roots":[', null],
  ['an error response', '{"jsonrpc":"2.0","id":5,"error":{"code":1', null],
  ['method before result keeps the id', '{"jsonrpc":"2.0","method":"m","result":1,"id":3,"params":{', 3],
  ['a fractional id', '{"jsonrpc":"2.0","id":1.5,"method":"m"', null],
  ['an id beyond 2^53', '{"jsonrpc":"2.0","id":9007199254740993,"method":"m"', null],
  ['a null id', '{"jsonrpc":"2.0","id":null,"method":"m"', null],
  ['an object id', '{"jsonrpc":"2.0","id":{"a":1},"method":"m"', null],
  ['a batch', '[{"jsonrpc":"2.0","id":1,"method":"m"}', null],
  ['not JSON', 'xxxxxxxxxxxxxxxxx', null],
  ['id hidden in a nested object only', '{"jsonrpc":"2.0","params":{"id":5},"method":"m","params2":"', null],
  ['empty', '', null],
];

for (const [name, head, expected] of CASES) {
  test(`reads the leading id: ${name}`, () => assert.deepEqual(leadingId(head), expected));
}

test('the splitter keeps only the first bytes of an oversize line, across chunks', () => {
  const splitter = new LineSplitter(1000);
  const start = '{"jsonrpc":"2.0","id":"big-1","method":"tools/call","params":{"x":"';
  const events = [
    ...splitter.push(Buffer.from(start)),
    ...splitter.push(Buffer.from('y'.repeat(5000))),
    ...splitter.push(Buffer.from('"}}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n')),
  ];
  assert.equal(events.length, 2);
  const big = events[0]!;
  assert.equal(big.kind, 'oversize');
  if (big.kind !== 'oversize') return;
  assert.equal(big.head.length, HEAD_BYTES);
  assert.ok(big.head.toString('latin1').startsWith(start));
  assert.equal(leadingId(big.head.toString('utf8')), 'big-1');
  assert.deepEqual(events[1], { kind: 'line', text: '{"jsonrpc":"2.0","id":2,"method":"ping"}' });
});
