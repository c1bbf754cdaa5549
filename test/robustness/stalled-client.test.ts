// A client that stops reading stdout while it sends 25,000 requests (more under ROBUSTNESS_SCALE): the server must stop
// reading too (bounded memory) and, once the client reads again, deliver every response once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../protocol/harness.js';
import { MB, pollUntil, rssBytes } from './observe.js';
import { endAndDrain, responsesById } from './drive.js';
import { runSeed, stressSize } from './prng.js';

// Far past the pipes' buffers and the server's queues, so the server must stop reading.
const REQUESTS = stressSize(25_000);
const RSS_LIMIT = 150 * MB;
/** While draining, the heap grows with garbage the collector has not reclaimed yet; still no backlog. */
const DRAIN_RSS_LIMIT = 256 * MB;

test(`keeps memory under ${RSS_LIMIT / MB} MB while the client stalls on ${REQUESTS} requests, then answers each exactly once`, async (t) => {
  const rng = runSeed('stalled-client');
  const s = startServer(t);
  await s.initialize();
  s.child.stdout.pause();

  // Mostly pings (small answers, so the run stays quick), with some heavier methods mixed in.
  const lines: string[] = [];
  for (let i = 1; i <= REQUESTS; i++) {
    const method = rng.weighted<string>([[90, 'ping'], [4, 'tools/list'], [3, 'prompts/list'], [3, 'resources/templates/list']]);
    lines.push(`{"jsonrpc":"2.0","id":${i},"method":"${method}"}`);
  }
  s.write(`${lines.join('\n')}\n`);

  // The server has stopped reading once our unsent input stays put; sample its memory meanwhile.
  let peak = 0;
  let lastPending = -1;
  let steady = 0;
  await pollUntil(() => {
    peak = Math.max(peak, rssBytes(s.child.pid!));
    const pending = s.child.stdin.writableLength;
    steady = pending > 0 && pending === lastPending ? steady + 1 : 0;
    lastPending = pending;
    return steady >= 10;
  }, 'the server stops consuming input while its output is not read', 15_000, 25);
  assert.ok(s.child.stdin.writableLength > 0, 'input is held back in the pipe, not in the server');
  assert.ok(peak < RSS_LIMIT, `server RSS stayed under ${RSS_LIMIT / MB} MB while stalled (peak ${(peak / MB).toFixed(1)} MB)`);
  assert.equal(s.child.exitCode, null, 'the server is alive while stalled');
  const stalledPeak = peak;

  s.child.stdout.resume();
  const sampler = setInterval(() => { peak = Math.max(peak, rssBytes(s.child.pid!)); }, 50);
  try {
    await s.response(REQUESTS, 60_000);
    await s.call('after', 'ping');
  } finally {
    clearInterval(sampler);
  }
  assert.ok(peak < DRAIN_RSS_LIMIT, `server RSS stayed under ${DRAIN_RSS_LIMIT / MB} MB while draining (peak ${(peak / MB).toFixed(1)} MB)`);
  console.error(`[stalled-client] peak server RSS ${(stalledPeak / MB).toFixed(1)} MB while stalled, ${(peak / MB).toFixed(1)} MB overall`);
  assert.deepEqual(await endAndDrain(s), { code: 0, signal: null });

  const byId = responsesById(s.messages);
  for (let i = 1; i <= REQUESTS; i++) {
    const got = byId.get(String(i));
    if (got?.length !== 1) assert.fail(`request ${i} was answered ${got?.length ?? 0} times`);
    if (!('result' in got[0]!)) assert.fail(`request ${i} failed: ${JSON.stringify(got[0])}`);
  }
  assert.equal(byId.size, REQUESTS + 2, 'no other answers (init and the last ping aside)');
});
