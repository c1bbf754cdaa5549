// Unit tests of the listen streams (src/mcp/subscriptions.ts): acknowledgement first, the honoured
// filter, routing of changes by filter, the end by cancellation or close, and the stream cap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_STREAMS, Subscriptions } from '../../src/mcp/subscriptions.js';
import type { RequestContext } from '../../src/rpc/dispatch.js';
import { RpcError } from '../../src/rpc/errors.js';

const SUB = 'io.modelcontextprotocol/subscriptionId';

function rig(rooEvents = false) {
  const sent: Array<{ method: string; params: Record<string, any> }> = [];
  const closers = new Set<() => void>();
  const subs = new Subscriptions({
    notify: (method, params) => { sent.push({ method, params }); return true; },
    onClose: (fn) => { closers.add(fn); return () => closers.delete(fn); },
    rooEvents,
  });
  const ctx = (id: string | number, caps: Record<string, unknown> = {}): RequestContext & { abort(): void } => {
    const controller = new AbortController();
    return {
      id, method: 'subscriptions/listen', signal: controller.signal, progressToken: undefined,
      stateless: { version: '2026-07-28', clientCapabilities: caps, logLevel: undefined },
      abort: () => controller.abort(),
    };
  };
  return { subs, sent, ctx, close: () => { for (const fn of [...closers]) fn(); } };
}

test('acknowledges the honoured part of the filter before anything else, tagged with the request id', () => {
  const { subs, sent, ctx } = rig();
  void subs.listen({ notifications: { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['mode://a', 'mode://a', 'file:///x'] } }, ctx(5));
  assert.deepEqual(sent, [{ method: 'notifications/subscriptions/acknowledged', params: { _meta: { [SUB]: 5 }, notifications: { promptsListChanged: true, resourceSubscriptions: ['mode://a'] } } }]);
});

test('routes each change only to the streams whose filter asked for it', () => {
  const { subs, sent, ctx } = rig();
  void subs.listen({ notifications: { resourcesListChanged: true } }, ctx('r'));
  void subs.listen({ notifications: { resourceSubscriptions: ['mode://a/config', 'mode://b/system_prompt', 'mode://c'] } }, ctx('u'));
  sent.length = 0;
  subs.modesChanged(['a'], false);
  assert.deepEqual(sent.map((m) => [m.method, m.params._meta[SUB], m.params.uri]), [
    ['notifications/resources/list_changed', 'r', undefined],
    ['notifications/resources/updated', 'u', 'mode://a/config'],
    ['notifications/resources/updated', 'u', 'mode://b/system_prompt'],
  ]);
});

test('a cancelled stream is forgotten; the connection closing ends the rest with their subscription id', async () => {
  const { subs, sent, ctx, close } = rig();
  const a = ctx('a');
  const endA = subs.listen({ notifications: { promptsListChanged: true } }, a);
  const endB = subs.listen({ notifications: { promptsListChanged: true } }, ctx('b'));
  a.abort();
  assert.deepEqual(await endA, { _meta: { [SUB]: 'a' } });
  assert.equal(subs.size, 1);
  sent.length = 0;
  subs.modesChanged([], true);
  assert.deepEqual(sent.map((m) => m.params._meta[SUB]), ['b']);
  close();
  assert.deepEqual(await endB, { _meta: { [SUB]: 'b' } });
  assert.equal(subs.size, 0);
});

test('Roo events need the extension declared (-32021) and go only to streams that asked', () => {
  const { subs, sent, ctx } = rig(true);
  const ext = 'io.github.roo-modes/roo-events';
  assert.throws(() => subs.listen({ notifications: { [ext]: true } }, ctx(1)), (e: unknown) => e instanceof RpcError && e.code === -32021);
  void subs.listen({ notifications: { [ext]: true } }, ctx(2, { extensions: { [ext]: {} } }));
  void subs.listen({ notifications: { promptsListChanged: true } }, ctx(3));
  sent.length = 0;
  subs.rooEvent({ eventName: 'taskStarted', payload: ['t1'] });
  assert.deepEqual(sent, [{ method: 'notifications/roo/event', params: { eventName: 'taskStarted', payload: ['t1'], _meta: { [SUB]: 2 } } }]);
});

test('refuses a filter that is not an object, bad URI lists, and streams beyond the cap', () => {
  const { subs, ctx } = rig();
  const code = (fn: () => unknown): number | undefined => { try { fn(); } catch (e) { return e instanceof RpcError ? e.code : undefined; } return undefined; };
  assert.equal(code(() => subs.listen({}, ctx('x'))), -32602);
  assert.equal(code(() => subs.listen({ notifications: { resourceSubscriptions: [1] } }, ctx('y'))), -32602);
  for (let i = 0; i < MAX_STREAMS; i++) void subs.listen({ notifications: {} }, ctx(i));
  assert.equal(code(() => subs.listen({ notifications: {} }, ctx('one-too-many'))), -32600);
});
