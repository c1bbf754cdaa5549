// Fuzzes the server's stdin with 20,000+ seeded lines (valid, mutated, random, broken bytes) and
// checks the JSON-RPC contract line by line. The seed is printed; ROBUSTNESS_SEED replays a run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../protocol/harness.js';
import { runSeed } from './prng.js';
import { CANCEL_PREFIX, LineGenerator, METHODS, TOOLS } from './fuzz-lines.js';
import { expectationFor, type Expectation } from './fuzz-expect.js';
import { checkServerMessage, idKey } from './observe.js';
import { endAndDrain, responsesById } from './drive.js';

const LINES = 20_000;
const NL = Buffer.from('\n');

/** A cancellation naming a real request would (rightly) drop its response: only made-up ids are sent. */
function cancelsSomethingReal(e: Expectation): boolean {
  if (e.kind !== 'notification' || e.method !== 'notifications/cancelled') return false;
  const target = e.params?.requestId;
  if (typeof target !== 'string' && typeof target !== 'number') return false;
  return !(typeof target === 'string' && target.startsWith(CANCEL_PREFIX));
}

test(`answers ${LINES} fuzz lines exactly as JSON-RPC requires, then a final ping, and exits 0 on EOF`, async (t) => {
  const rng = runSeed('fuzz');
  const s = startServer(t);
  await s.initialize('2025-11-25');
  const sessionIds: string[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await s.tool(`pre-${i}`, 'create_task', { mode_slug: i === 0 ? 'code' : 'architect', initial_message: 'fuzz target' });
    sessionIds.push(res.result.metadata.session_id as string);
  }
  // Every tool the server offers is one the generator knows how to call with valid arguments.
  const served = ((await s.call('tools', 'tools/list')).result.tools as { name: string }[]).map((x) => x.name);
  for (const name of served) assert.ok((TOOLS as readonly string[]).includes(name), `the fuzz generator covers the served tool ${name}`);
  const setupResponses = s.messages.length;

  const gen = new LineGenerator(rng.fork(), { sessionIds, maxDepth: 1000 });
  const used = new Set<string>(['"init"', '"pre-0"', '"pre-1"', '"pre-2"', '"tools"', '"final-ping"']);
  const owed = new Map<string, Expectation>();
  const tally = { parse: 0, invalidNull: 0, notifications: 0, clientResponses: 0, blank: 0 };
  const chunks: Buffer[] = [];
  let bytes = 0;
  for (let i = 0; i < LINES; i++) {
    let line: Buffer;
    let e: Expectation;
    for (;;) {
      line = gen.next();
      e = expectationFor(line);
      const id = e.kind === 'request' || e.kind === 'invalid' ? e.id : null;
      if (id !== null && used.has(idKey(id))) continue; // ids stay unique so "exactly once" is checkable
      if (cancelsSomethingReal(e)) continue;
      if (id !== null) { used.add(idKey(id)); owed.set(idKey(id), e); }
      break;
    }
    switch (e.kind) {
      case 'parse-error': tally.parse++; break;
      case 'invalid': if (e.id === null) tally.invalidNull++; break;
      case 'notification': tally.notifications++; break;
      case 'client-response': tally.clientResponses++; break;
      case 'blank': tally.blank++; break;
      default: break;
    }
    chunks.push(line, NL);
    bytes += line.length + 1;
  }
  console.error(`[fuzz] ${LINES} lines, ${bytes} bytes: ${owed.size} with an id owed an answer, ${tally.parse} unparsable, ${tally.invalidNull} invalid without id, ${tally.notifications} notifications, ${tally.clientResponses} client responses, ${tally.blank} blank`);

  // The generator reached every method and tool with valid parameters, and every kind of line.
  for (const m of METHODS) assert.ok((gen.stats.validMethods.get(m) ?? 0) > 0, `a valid ${m} request was generated`);
  for (const tool of TOOLS) assert.ok((gen.stats.validTools.get(tool) ?? 0) > 0, `a valid ${tool} call was generated`);
  for (const k of ['parse', 'invalidNull', 'notifications', 'clientResponses', 'blank'] as const) assert.ok(tally[k] > 0, `some lines of kind ${k}`);

  s.write(Buffer.concat(chunks));
  s.request('final-ping', 'ping');
  assert.deepEqual((await s.response('final-ping', 60_000)).result, {}, 'the final ping is answered');
  assert.equal(s.child.exitCode, null, 'the server is still running');
  const exit = await endAndDrain(s, 20_000);
  assert.deepEqual(exit, { code: 0, signal: null }, `exit 0 on EOF; stderr tail:\n${s.stderr.slice(-1500)}`);

  // Every stdout line is one well-formed JSON-RPC message (no batches: this is not a 2025-03-26 session).
  s.assertStdoutPure();
  const fuzzMessages = s.messages.slice(setupResponses);
  for (const m of fuzzMessages) {
    const c = checkServerMessage(m);
    assert.ok(!('problem' in c), `malformed message ${'problem' in c ? c.problem : ''}: ${JSON.stringify(m).slice(0, 300)}`);
    assert.notEqual((c as { kind: string }).kind, 'request', `the server sent a request: ${JSON.stringify(m).slice(0, 300)}`);
  }

  const byId = responsesById(fuzzMessages);
  const nulls = byId.get('null') ?? [];
  byId.delete('null');
  assert.equal(byId.get('"final-ping"')?.length, 1);
  byId.delete('"final-ping"');
  const missing: string[] = [];
  for (const [key, e] of owed) {
    const got = byId.get(key) ?? [];
    if (got.length === 0) { missing.push(`${key} (${e.kind === 'request' ? e.method : e.kind})`); continue; }
    assert.equal(got.length, 1, `exactly one answer for id ${key} (${e.kind}): ${JSON.stringify(got).slice(0, 400)}`);
    if (e.kind === 'invalid') assert.equal(got[0]!.error?.code, -32600, `an invalid message with id ${key} gets -32600: ${JSON.stringify(got[0]).slice(0, 300)}`);
    byId.delete(key);
  }
  assert.deepEqual(missing.slice(0, 20), [], `${missing.length} requests were never answered`);
  assert.deepEqual([...byId.keys()].slice(0, 20), [], 'no answer carries an id that no request or invalid line had (notifications and client responses are never answered)');

  const parseErrors = nulls.filter((m) => m.error?.code === -32700).length;
  const invalidErrors = nulls.filter((m) => m.error?.code === -32600).length;
  assert.equal(nulls.length, parseErrors + invalidErrors, 'answers with id null are -32700 or -32600 errors only');
  assert.equal(parseErrors, tally.parse, 'one -32700 (id null) per unparsable line');
  assert.equal(invalidErrors, tally.invalidNull, 'one -32600 (id null) per invalid line without a usable id');

  // -32603 is reserved for bugs (DESIGN §4); hostile input must get a precise error instead.
  const internal = fuzzMessages.filter((m) => m.error?.code === -32603);
  assert.deepEqual(internal.slice(0, 5), [], `${internal.length} requests ended in an internal error`);
});
