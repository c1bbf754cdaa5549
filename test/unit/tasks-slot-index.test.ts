// Unit tests of the session table's slot index (src/tasks/slot-index.ts): lookups through
// collisions, removal from the middle of a run that wraps around the end, growth.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { SlotIndex } from '../../src/tasks/slot-index.js';

/** Slots whose "ids" are [hi, lo] pairs, with a hash the test chooses (to force collisions). */
function indexOf(hashes: Map<number, number>, ids: Map<number, [number, number]>): SlotIndex {
  return new SlotIndex((slot) => hashes.get(slot)!, (slot, hi, lo) => ids.get(slot)?.[0] === hi && ids.get(slot)?.[1] === lo);
}

test('finds every slot through collisions and wrap-around, and forgets removed ones without losing the rest', () => {
  const hashes = new Map<number, number>();
  const ids = new Map<number, [number, number]>();
  const index = indexOf(hashes, ids);
  // Twenty slots hashing to the last three cells of 1,024: their runs wrap to the start.
  for (let slot = 0; slot < 20; slot++) {
    hashes.set(slot, 1021 + (slot % 3));
    ids.set(slot, [slot * 7, slot * 11]);
    index.add(hashes.get(slot)!, slot);
  }
  for (let slot = 0; slot < 20; slot++) assert.equal(index.find(hashes.get(slot)!, slot * 7, slot * 11), slot);
  assert.equal(index.find(1021, 1, 2), undefined);
  for (const slot of [0, 5, 19, 10, 1]) index.remove(hashes.get(slot)!, slot);
  for (let slot = 0; slot < 20; slot++) {
    const expected = [0, 5, 19, 10, 1].includes(slot) ? undefined : slot;
    assert.equal(index.find(hashes.get(slot)!, slot * 7, slot * 11), expected, `slot ${slot}`);
  }
  index.remove(1021, 0); // already gone: nothing happens
  assert.equal(index.find(hashes.get(2)!, 14, 22), 2);
});

test('grows past half full and keeps every slot findable, random hashes and removals mixed in', () => {
  const hashes = new Map<number, number>();
  const ids = new Map<number, [number, number]>();
  const index = indexOf(hashes, ids);
  let seed = 12345;
  const rand = (): number => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 1; return seed; };
  const present = new Set<number>();
  for (let slot = 0; slot < 5000; slot++) {
    hashes.set(slot, rand() | 0);
    ids.set(slot, [slot, rand()]); // unique ids; random hashes collide freely
    index.add(hashes.get(slot)!, slot);
    present.add(slot);
    if (slot % 3 === 0) {
      const gone = slot - (rand() % Math.min(slot + 1, 50));
      if (present.delete(gone)) index.remove(hashes.get(gone)!, gone);
    }
  }
  for (let slot = 0; slot < 5000; slot++) {
    const [hi, lo] = ids.get(slot)!;
    assert.equal(index.find(hashes.get(slot)!, hi, lo), present.has(slot) ? slot : undefined, `slot ${slot}`);
  }
});
