// Calls on one session sent back to back (without waiting for answers) must take effect in the
// order they arrived, as the processor's ordering contract states, with and without persistence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startServer } from '../protocol/harness.js';
import { runSeed } from './prng.js';
import { endAndDrain, persistenceConfig, scratchDir } from './drive.js';

const MODES = ['code', 'architect', 'ask', 'debug', 'orchestrator'];

for (const persistence of [false, true]) {
  test(`applies pipelined switch_mode and complete_task calls on one session in arrival order${persistence ? ' (persistence on)' : ''}`, async (t) => {
    const rng = runSeed(`pipelined-order${persistence ? '-persisted' : ''}`);
    const args = persistence ? ['--config', persistenceConfig(scratchDir(t), join(scratchDir(t), 'sessions'))] : [];
    const s = startServer(t, { args });
    await s.initialize();
    const plans: { session: string; modes: string[]; status: string; ids: string[] }[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await s.tool(`create-${i}`, 'create_task', { mode_slug: 'code' });
      plans.push({ session: res.result.metadata.session_id as string, modes: [], status: rng.pick(['completed', 'failed', 'cancelled']), ids: [] });
    }
    // Interleave the sessions' calls; each session gets 1–4 switches, then its completion.
    for (const p of plans) {
      let current = 'code';
      for (let k = rng.int(1, 4); k > 0; k--) { current = rng.pick(MODES.filter((m) => m !== current)); p.modes.push(current); }
    }
    const queues = plans.map((p, i) => [
      ...p.modes.map((mode, k) => ({ id: `s${i}-${k}`, name: 'switch_mode', args: { session_id: p.session, new_mode_slug: mode } })),
      { id: `c${i}`, name: 'complete_task', args: { session_id: p.session, status: p.status } },
    ]);
    let text = '';
    while (queues.some((q) => q.length > 0)) {
      const q = rng.pick(queues.filter((x) => x.length > 0));
      const call = q.shift()!;
      text += `${JSON.stringify({ jsonrpc: '2.0', id: call.id, method: 'tools/call', params: { name: call.name, arguments: call.args } })}\n`;
    }
    s.write(text);
    for (const [i, p] of plans.entries()) {
      for (let k = 0; k < p.modes.length; k++) {
        const res = await s.response(`s${i}-${k}`);
        assert.equal(res.error, undefined, `switch ${k + 1} of session ${i} (sent before its completion) succeeds: ${JSON.stringify(res.error)}`);
        assert.equal(res.result.metadata.old_mode, k === 0 ? 'code' : p.modes[k - 1], `switch ${k + 1} of session ${i} starts from the mode the previous one set`);
      }
      assert.equal((await s.response(`c${i}`)).error, undefined, `completion of session ${i} succeeds`);
      const info = await s.tool(`info-${i}`, 'get_task_info', { session_id: p.session });
      const task = info.result.metadata.task as { state: string; mode_slug: string; mode_history: { to: string }[] };
      assert.deepEqual(task.mode_history.map((h) => h.to), p.modes, 'the mode history lists the switches in the order sent');
      assert.equal(task.state, p.status);
    }
    assert.deepEqual(await endAndDrain(s), { code: 0, signal: null });
  });
}
