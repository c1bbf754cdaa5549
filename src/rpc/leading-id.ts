// Reads the id of a JSON-RPC message from the first bytes of its line, for a line refused without
// being read (over the size limit). It scans a bounded head only; it never parses the whole line.
import { isValidId, type RequestId } from './jsonrpc.js';

const WS = new Set([' ', '\t', '\n', '\r']);

/**
 * How it works: a tiny scanner walks the top-level members of the object at the start of `head`,
 * skipping values it does not need (strings, numbers, nested brackets) without building them. It
 * answers the id as soon as it has read one and seen "method" too; it answers null when the head
 * is not an object, names "result" or "error" first (a response is never answered), or holds no
 * complete, usable id. Cost: one pass over at most `head.length` characters.
 */
export function leadingId(head: string): RequestId | null {
  const s = new Scan(head);
  s.ws();
  if (!s.take('{')) return null;
  let id: RequestId | null = null;
  let method = false;
  for (;;) {
    if (id !== null && method) return id;
    s.ws();
    const key = s.string();
    if (key === undefined) return id;
    s.ws();
    if (!s.take(':')) return id;
    s.ws();
    if (!method && (key === 'result' || key === 'error')) return null;
    if (key === 'method') method = true;
    if (key === 'id') {
      const value = s.scalar();
      if (value === undefined) return null;
      if (!isValidId(value)) return null;
      id = value;
    } else if (!s.skip()) {
      return id;
    }
    s.ws();
    if (!s.take(',')) return id;
  }
}

class Scan {
  i = 0;
  constructor(readonly text: string) {}

  ws(): void { while (this.i < this.text.length && WS.has(this.text[this.i]!)) this.i++; }

  take(ch: string): boolean {
    if (this.text[this.i] !== ch) return false;
    this.i++;
    return true;
  }

  /** A complete string literal, decoded; undefined when there is none here or it is cut off. */
  string(): string | undefined {
    if (this.text[this.i] !== '"') return undefined;
    const start = this.i;
    const end = this.#stringEnd(start);
    if (end === -1) return undefined;
    this.i = end;
    try { return JSON.parse(this.text.slice(start, end)) as string; } catch { return undefined; }
  }

  /** A complete string or number (a number must end before the head does); undefined otherwise. */
  scalar(): unknown {
    if (this.text[this.i] === '"') return this.string();
    const start = this.i;
    while (this.i < this.text.length && /[-+0-9.eE]/.test(this.text[this.i]!)) this.i++;
    if (this.i === start || this.i >= this.text.length) return undefined;
    try { return JSON.parse(this.text.slice(start, this.i)) as unknown; } catch { return undefined; }
  }

  /** Steps over one value of any kind; false when the head ends inside it. */
  skip(): boolean {
    let depth = 0;
    while (this.i < this.text.length) {
      const ch = this.text[this.i]!;
      if (ch === '"') {
        const end = this.#stringEnd(this.i);
        if (end === -1) return false;
        this.i = end;
        if (depth === 0) return true;
        continue;
      }
      if (ch === '{' || ch === '[') depth++;
      else if (ch === '}' || ch === ']') {
        if (depth === 0) return true;
        depth--;
        if (depth === 0) { this.i++; return true; }
      } else if (depth === 0 && (ch === ',' || WS.has(ch))) return true;
      this.i++;
    }
    return false;
  }

  /** Offset just past the closing quote of the string opening at `start`; -1 when cut off. */
  #stringEnd(start: number): number {
    for (let j = start + 1; j < this.text.length; j++) {
      const ch = this.text[j];
      if (ch === '\\') j++;
      else if (ch === '"') return j + 1;
    }
    return -1;
  }
}
