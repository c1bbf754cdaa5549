// A small seeded pseudo-random generator for the robustness tests, and the one place that decides
// the run's seed (ROBUSTNESS_SEED or a fresh one, always printed). It never uses Math.random for draws.

/**
 * How it works: sfc32 (a 128-bit state, 32-bit output generator) whose state is spread from the
 * 32-bit seed with splitmix32, then warmed up, so nearby seeds give unrelated streams. The same
 * seed always replays the same sequence of draws.
 */
export class Prng {
  readonly seed: number;
  readonly #s = new Uint32Array(4);

  constructor(seed: number) {
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new TypeError(`seed must be a 32-bit unsigned integer, got ${seed}`);
    this.seed = seed;
    let x = seed >>> 0;
    for (let i = 0; i < 4; i++) {
      x = (x + 0x9e3779b9) >>> 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      this.#s[i] = (z ^ (z >>> 16)) >>> 0;
    }
    for (let i = 0; i < 16; i++) this.u32();
  }

  /** The next 32-bit unsigned value. */
  u32(): number {
    const s = this.#s;
    const t = (((s[0]! + s[1]!) >>> 0) + s[3]!) >>> 0;
    s[3] = (s[3]! + 1) >>> 0;
    s[0] = s[1]! ^ (s[1]! >>> 9);
    s[1] = (s[2]! + (s[2]! << 3)) >>> 0;
    s[2] = ((s[2]! << 21) | (s[2]! >>> 11)) >>> 0;
    s[2] = (s[2]! + t) >>> 0;
    return t;
  }

  /** A float in [0, 1). */
  float(): number { return this.u32() / 0x1_0000_0000; }

  /** An integer in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number {
    if (!(hi >= lo)) throw new RangeError(`empty range [${lo}, ${hi}]`);
    return lo + Math.floor(this.float() * (hi - lo + 1));
  }

  chance(p: number): boolean { return this.float() < p; }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[this.int(0, items.length - 1)]!;
  }

  /** Picks by weight: `[[weight, value], ...]`. */
  weighted<T>(table: readonly (readonly [number, T])[]): T {
    const total = table.reduce((sum, [w]) => sum + w, 0);
    let r = this.float() * total;
    for (const [w, v] of table) {
      if (r < w) return v;
      r -= w;
    }
    return table[table.length - 1]![1];
  }

  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = this.u32() & 0xff;
    return out;
  }

  /** An independent generator derived from this one (so one test's draws never shift another's). */
  fork(): Prng { return new Prng(this.u32()); }
}

/**
 * The run's seed: ROBUSTNESS_SEED when set (decimal, or any text, which is hashed), else a fresh
 * one. It is printed on stderr so a failing run can be replayed with the same value.
 */
export function runSeed(label: string, env: NodeJS.ProcessEnv = process.env): Prng {
  const given = env.ROBUSTNESS_SEED;
  let seed: number;
  if (given !== undefined && given !== '') {
    seed = /^\d+$/.test(given) && Number(given) <= 0xffffffff ? Number(given) : hashText(given);
  } else {
    seed = (Date.now() ^ (process.pid << 16) ^ Math.floor(Math.random() * 0x1_0000_0000)) >>> 0;
  }
  console.error(`[${label}] robustness seed ${seed} (replay with ROBUSTNESS_SEED=${seed})`);
  return new Prng(seed);
}

/** FNV-1a over the UTF-16 code units: a stable 32-bit number for a seed given as text. */
function hashText(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * How many draws a stress test makes: `base` times ROBUSTNESS_SCALE (a whole number, 1 when unset).
 * `npm test` runs the base size, which already reaches every bound the test checks; .ci/run runs
 * the stress files again at a larger scale, where a rarer interleaving has more chances to show.
 */
export function stressSize(base: number, env: NodeJS.ProcessEnv = process.env): number {
  const given = env.ROBUSTNESS_SCALE;
  if (given === undefined || given === '') return base;
  if (!/^[1-9]\d{0,2}$/.test(given)) throw new TypeError(`ROBUSTNESS_SCALE must be a whole number from 1 to 999, got ${JSON.stringify(given)}`);
  return base * Number(given);
}
