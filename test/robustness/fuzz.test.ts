// Fuzzes the server's stdin with 20,000+ seeded lines (valid, mutated, random, broken bytes), and a
// 2025-03-26 session with batches of them (some elements nested past the depth bound), and checks
// the JSON-RPC contract message by message: every request id answered exactly once. The seed is
// printed; ROBUSTNESS_SEED replays a run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type ServerProcess } from '../protocol/harness.js';
import { runSeed, stressSize } from './prng.js';
import { CANCEL_PREFIX, LineGenerator, METHODS, TOOLS } from './fuzz-lines.js';
import { expectationFor, expectationsFor, MAX_DEPTH, type Expectation } from './fuzz-expect.js';
import { checkServerMessage, idKey } from './observe.js';
import { endAndDrain, responsesById } from './drive.js';

const LINES = stressSize(5_000);
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
  const tally: Tally = { parse: 0, invalidNull: 0, notifications: 0, clientResponses: 0, blank: 0 };
  const chunks: Buffer[] = [];
  let bytes = 0;
  // The generator reaches every method and tool with valid parameters, and every kind of line: at
  // LINES lines a rare kind can still be missing for some seeds, so it goes on until each was made.
  const covered = (): boolean => METHODS.every((m) => (gen.stats.validMethods.get(m) ?? 0) > 0)
    && TOOLS.every((tool) => (gen.stats.validTools.get(tool) ?? 0) > 0)
    && (['parse', 'invalidNull', 'notifications', 'clientResponses', 'blank'] as const).every((k) => tally[k] > 0);
  let made = 0;
  for (; made < LINES || (made < 4 * LINES && !covered()); made++) {
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
    count(tally, e);
    chunks.push(line, NL);
    bytes += line.length + 1;
  }
  console.error(`[fuzz] ${made} lines, ${bytes} bytes: ${owed.size} with an id owed an answer, ${tally.parse} unparsable, ${tally.invalidNull} invalid without id, ${tally.notifications} notifications, ${tally.clientResponses} client responses, ${tally.blank} blank`);

  for (const m of METHODS) assert.ok((gen.stats.validMethods.get(m) ?? 0) > 0, `a valid ${m} request was generated`);
  for (const tool of TOOLS) assert.ok((gen.stats.validTools.get(tool) ?? 0) > 0, `a valid ${tool} call was generated`);
  for (const k of ['parse', 'invalidNull', 'notifications', 'clientResponses', 'blank'] as const) assert.ok(tally[k] > 0, `some lines of kind ${k}`);

  s.write(Buffer.concat(chunks));
  s.request('final-ping', 'ping');
  assert.deepEqual((await s.response('final-ping', 60_000)).result, {}, 'the final ping is answered');
  assert.equal(s.child.exitCode, null, 'the server is still running');
  const exit = await endAndDrain(s, 20_000);
  assert.deepEqual(exit, { code: 0, signal: null }, `exit 0 on EOF; stderr tail:\n${s.stderr.slice(-1500)}`);

  checkAnswers(s, setupResponses, owed, tally);
});

const BATCH_LINES = stressSize(3_000);

/** A request nested `depth` levels deep in its params, with a fresh id. */
function deepRequest(id: string, depth: number): Buffer {
  return Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"name":"list_modes","arguments":{"x":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}}}`);
}

test(`answers ${BATCH_LINES} fuzz lines in a 2025-03-26 session, batches among them with elements past the depth bound, every request id exactly once`, async (t) => {
  const rng = runSeed('fuzz-batches');
  const s = startServer(t);
  await s.initialize('2025-03-26');
  const sessionIds: string[] = [];
  for (let i = 0; i < 2; i++) {
    const res = await s.tool(`pre-${i}`, 'create_task', { mode_slug: 'code', initial_message: 'fuzz target' });
    sessionIds.push(res.result.metadata.session_id as string);
  }
  const setupResponses = s.messages.length;
  const gen = new LineGenerator(rng.fork(), { sessionIds, maxDepth: 1500 });
  const used = new Set<string>(['"init"', '"pre-0"', '"pre-1"', '"final-ping"']);
  const owed = new Map<string, Expectation>();
  const tally: Tally = { parse: 0, invalidNull: 0, notifications: 0, clientResponses: 0, blank: 0 };
  const shape = { batches: 0, deepElements: 0, requestsInBatches: 0 };
  const chunks: Buffer[] = [];
  let serial = 0;
  for (let i = 0; i < BATCH_LINES; i++) {
    let line: Buffer;
    let expected: Expectation[];
    for (;;) {
      if (rng.chance(0.4)) {
        // A batch of generated lines (each a JSON value or not: then the whole line fails to parse),
        // now and then with an element nested past the bound beside them.
        const parts = Array.from({ length: rng.int(1, 6) }, () => gen.next());
        if (rng.chance(0.5)) parts.splice(rng.int(0, parts.length), 0, deepRequest(`deep-${++serial}`, rng.int(MAX_DEPTH + 1, MAX_DEPTH + 400)));
        line = Buffer.concat([Buffer.from('['), ...parts.flatMap((p, j) => (j === 0 ? [p] : [Buffer.from(','), p])), Buffer.from(']')]);
      } else {
        line = gen.next();
      }
      expected = expectationsFor(line, true);
      const ids = expected.flatMap((e) => (e.kind === 'request' || e.kind === 'invalid') && e.id !== null ? [idKey(e.id)] : []);
      // Ids stay unique across the run (and within a batch) so "exactly once" is checkable.
      if (ids.some((k) => used.has(k)) || new Set(ids).size !== ids.length) continue;
      if (expected.some(cancelsSomethingReal)) continue;
      break;
    }
    if (line[0] === 0x5b && expected.length > 0 && expected[0]!.kind !== 'parse-error') {
      shape.batches++;
      shape.requestsInBatches += expected.filter((e) => e.kind === 'request').length;
      shape.deepElements += (line.toString('latin1').match(/"id":"deep-\d+"/g) ?? []).length;
    }
    for (const e of expected) {
      if ((e.kind === 'request' || e.kind === 'invalid') && e.id !== null) { used.add(idKey(e.id)); owed.set(idKey(e.id), e); }
      count(tally, e);
    }
    chunks.push(line, NL);
  }
  console.error(`[fuzz-batches] ${BATCH_LINES} lines: ${shape.batches} batches holding ${shape.requestsInBatches} requests and ${shape.deepElements} elements nested past ${MAX_DEPTH}; ${owed.size} ids owed an answer`);
  assert.ok(shape.batches > 500 && shape.deepElements > 200 && shape.requestsInBatches > 500, 'the run holds many batches, deep elements and requests beside them');

  s.write(Buffer.concat(chunks));
  s.request('final-ping', 'ping');
  assert.deepEqual((await s.response('final-ping', 120_000)).result, {}, 'the final ping is answered');
  const exit = await endAndDrain(s, 30_000);
  assert.deepEqual(exit, { code: 0, signal: null }, `exit 0 on EOF; stderr tail:\n${s.stderr.slice(-1500)}`);
  checkAnswers(s, setupResponses, owed, tally);
});

interface Tally { parse: number; invalidNull: number; notifications: number; clientResponses: number; blank: number }

/** Counts one expectation in the tally of kinds. */
function count(tally: Tally, e: Expectation): void {
  switch (e.kind) {
    case 'parse-error': tally.parse++; break;
    case 'invalid': if (e.id === null) tally.invalidNull++; break;
    case 'notification': tally.notifications++; break;
    case 'client-response': tally.clientResponses++; break;
    case 'blank': tally.blank++; break;
    default: break;
  }
}

/**
 * After the run: every message well formed, every owed id answered exactly once (and no other id),
 * one id-null error per unparsable line or invalid message without a usable id, no -32603.
 */
function checkAnswers(s: ServerProcess, setupResponses: number, owed: Map<string, Expectation>, tally: Tally): void {
  // Every stdout line is one well-formed JSON-RPC message (or, in a 2025-03-26 session, a batch of them).
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
}
