// Scale: resources/list (every page, following nextCursor) and one list_modes call, with 10, 100,
// 1,000 and 5,000 custom modes in a generated project .roomodes; the floor answers as many requests.
import { Peer, median, ms, now, projectWithModes, round, row } from './lib.mjs';

const BUILTINS = 5;
/** "Linear or better": from 1,000 to 5,000 modes the time may grow 5× plus this much noise. */
const SLACK = 1.25;

/** Every page of resources/list in turn; returns {ms, pages, items}. */
async function allResourcePages(peer) {
  const t0 = now();
  let pages = 0;
  let items = 0;
  let cursor;
  do {
    const result = await peer.call('resources/list', cursor === undefined ? {} : { cursor });
    pages++;
    items += result.resources?.length ?? 0;
    cursor = result.nextCursor;
  } while (cursor !== undefined);
  return { ms: now() - t0, pages, items };
}

/** The floor answers the same number of sequential requests (it has no pages of its own). */
async function floorRequests(peer, method, params, count) {
  const t0 = now();
  for (let i = 0; i < count; i++) await peer.call(method, params);
  return now() - t0;
}

async function measureSize(count, rounds, floor) {
  const project = projectWithModes(count);
  const ours = Peer.start('ours', { args: ['--project-root', project.dir, '--config-dir', project.configDir], cwd: project.dir });
  try {
    await ours.initialize();
    const first = await ours.tool('list_modes', {});
    if (first.metadata.count !== count + BUILTINS) {
      throw new Error(`expected ${count + BUILTINS} modes, the server lists ${first.metadata.count}: ${ours.stderrTail.slice(-500)}`);
    }
    const warm = await allResourcePages(ours);
    for (let i = 0; i < 3; i++) await ours.tool('list_modes', {}); // JIT warm-up
    await floorRequests(floor, 'resources/list', {}, warm.pages);
    const res = { ours: [], floor: [] };
    const list = { ours: [], floor: [] };
    for (let r = 0; r < rounds; r++) {
      const steps = [
        async () => { res.ours.push((await allResourcePages(ours)).ms); },
        async () => { res.floor.push(await floorRequests(floor, 'resources/list', {}, warm.pages)); },
        async () => { const t0 = now(); await ours.tool('list_modes', {}); list.ours.push(now() - t0); },
        async () => { list.floor.push(await floorRequests(floor, 'tools/call', { name: 'list_modes', arguments: {} }, 1)); },
      ];
      if (r % 2 === 1) steps.reverse();
      for (const step of steps) await step();
    }
    return {
      count, pages: warm.pages, items: warm.items,
      resources: median(res.ours), resourcesFloor: median(res.floor),
      listModes: median(list.ours), listModesFloor: median(list.floor),
    };
  } finally {
    await ours.stop();
    project.cleanup();
  }
}

export async function scale({ rounds, sizes }) {
  const floor = Peer.start('floor');
  const results = [];
  try {
    await floor.initialize();
    for (const size of sizes) results.push(await measureSize(size, rounds, floor));
  } finally {
    await floor.stop();
  }
  const big = results[results.length - 1];
  const mid = results[results.length - 2];
  const factor = big.count / mid.count;
  const rows = [];
  for (const [key, label, floorKey] of [['resources', 'resources/list, all pages', 'resourcesFloor'], ['listModes', 'list_modes', 'listModesFloor']]) {
    const growth = big[key] / mid[key];
    const keys = {};
    for (const r of results) keys[`scale_${key === 'resources' ? 'resources_list' : 'list_modes'}_${r.count}_ms`] = round(r[key], 2);
    keys[`scale_${key === 'resources' ? 'resources_list' : 'list_modes'}_growth`] = round(growth, 2);
    rows.push(row(`scale: ${label} (${results.map((r) => r.count).join('/')} modes)`, {
      ours: results.map((r) => ms(r[key])).join(' / '),
      floor: `${ms(big[floorKey])} @${big.count}`,
      ratio: growth,
      target: `×${mid.count}→${big.count} ≤ ${(factor * SLACK).toFixed(2)}×`,
      pass: growth <= factor * SLACK,
      keys,
    }));
  }
  const notes = results.map((r) => `  ${r.count} modes: resources/list ${r.pages} page(s), ${r.items} resources, ${ms(r.resources)} (floor ${ms(r.resourcesFloor)} for ${r.pages} requests); list_modes ${ms(r.listModes)} (floor ${ms(r.listModesFloor)})`);
  return { rows, notes };
}
