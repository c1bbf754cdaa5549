// Looks at a mode file every few milliseconds while a test runs, as readers of the shared volume
// do: every look must parse. It owns its polling loop (ended by stop() or after the test) and asserts nothing else.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import type { TestContext } from 'node:test';
import { modeEntries } from '../src/authoring/mode-file-edit.js';

/** Starts looking at `file`; stop() ends it, asserts every look parsed and resolves to how many did. */
export function watchParses(t: TestContext, file: string): { stop(): Promise<number> } {
  const state = { on: true, reads: 0, bad: '' };
  const done = (async () => {
    while (state.on) {
      if (existsSync(file)) {
        const text = readFileSync(file, 'utf8');
        try { modeEntries(text); state.reads++; } catch (err) { state.bad ||= `${(err as Error).message}: ${text.slice(0, 300)}`; }
      }
      await new Promise((resolve) => setTimeout(resolve, 2)); // the pace of looking, not a wait for an event
    }
  })();
  t.after(() => { state.on = false; });
  return { async stop() { state.on = false; await done; assert.equal(state.bad, '', 'the mode file parsed at every look'); return state.reads; } };
}
