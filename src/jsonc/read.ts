// A JSON reader that keeps source positions (strict JSON, or JSON with comments and trailing
// commas) and a text-splicing upsert that leaves every byte outside the edited spot as it was.


export interface JsonMember {
  key: string;
  /** Offset of the key's opening quote. */
  keyStart: number;
  value: JsonNode;
}

export interface JsonNode {
  kind: 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';
  /** Offsets of the value's first character and one past its last (`}` included for objects). */
  start: number;
  end: number;
  value: unknown;
  /** Object members in source order (objects only). */
  members?: JsonMember[];
}

export interface Comment {
  start: number;
  end: number;
}

export interface ParsedJson {
  root: JsonNode;
  comments: Comment[];
}

export interface Dialect {
  comments: boolean;
  trailingCommas: boolean;
}

export const STRICT_JSON: Dialect = { comments: false, trailingCommas: false };
export const JSONC: Dialect = { comments: true, trailingCommas: true };

export class JsonSyntaxError extends Error {
  readonly line: number;
  readonly column: number;
  constructor(message: string, text: string, offset: number) {
    const { line, column } = lineColumn(text, offset);
    super(`line ${line}, column ${column}: ${message}`);
    this.name = 'JsonSyntaxError';
    this.line = line;
    this.column = column;
  }
}

/** 1-based line and column of an offset (columns count UTF-16 units, as editors mostly do). */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** Nesting deeper than this is refused before recursion could exhaust the stack (real configs nest < 10). */
export const MAX_JSON_DEPTH = 512;

/** The text nests objects and arrays deeper than MAX_JSON_DEPTH: refused whole, not a syntax error. */
export class JsonTooDeepError extends Error {
  readonly line: number;
  readonly column: number;
  constructor(text: string, offset: number) {
    const { line, column } = lineColumn(text, offset);
    super(`line ${line}, column ${column}: objects and arrays nest deeper than ${MAX_JSON_DEPTH} levels`);
    this.name = 'JsonTooDeepError';
    this.line = line;
    this.column = column;
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Parses the whole text; throws JsonSyntaxError with line and column on the first problem. */
export function parseJson(text: string, dialect: Dialect): ParsedJson {
  const comments: Comment[] = [];
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let depth = 0;
  const fail = (message: string, at = pos): never => {
    throw new JsonSyntaxError(message, text, at);
  };

  const skip = (): void => {
    for (;;) {
      const ch = text[pos];
      if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
        pos++;
      } else if (ch === '/' && (text[pos + 1] === '/' || text[pos + 1] === '*')) {
        if (!dialect.comments) fail('comments are not allowed in strict JSON');
        const start = pos;
        if (text[pos + 1] === '/') {
          const nl = text.indexOf('\n', pos);
          pos = nl === -1 ? text.length : nl;
        } else {
          const close = text.indexOf('*/', pos + 2);
          if (close === -1) fail('unterminated /* comment');
          pos = close + 2;
        }
        comments.push({ start, end: pos });
      } else {
        return;
      }
    }
  };

  const parseString = (): string => {
    const start = pos;
    pos++;
    for (;;) {
      const ch = text[pos];
      if (ch === undefined) fail('unterminated string', start);
      if (ch === '"') break;
      if (ch! < ' ') fail('control character inside a string');
      if (ch === '\\') {
        const esc = text[pos + 1];
        if (esc === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(pos + 2, pos + 6))) fail('bad \\u escape');
          pos += 6;
          continue;
        }
        if (esc === undefined || !'"\\/bfnrt'.includes(esc)) fail('bad escape in a string');
        pos += 2;
        continue;
      }
      pos++;
    }
    pos++;
    return JSON.parse(text.slice(start, pos)) as string;
  };

  const parseValue = (): JsonNode => {
    skip();
    const start = pos;
    const ch = text[pos];
    if (ch === '{' || ch === '[') {
      if (++depth > MAX_JSON_DEPTH) throw new JsonTooDeepError(text, pos);
      const node = ch === '{' ? parseObject() : parseArray();
      depth--;
      return node;
    }
    if (ch === '"') {
      const value = parseString();
      return { kind: 'string', start, end: pos, value };
    }
    for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(word, pos)) {
        pos += word.length;
        return { kind: value === null ? 'null' : 'boolean', start, end: pos, value };
      }
    }
    NUMBER.lastIndex = pos;
    const m = NUMBER.exec(text);
    if (m !== null) {
      pos += m[0].length;
      return { kind: 'number', start, end: pos, value: Number(m[0]) };
    }
    return fail(ch === undefined ? 'unexpected end of input' : `unexpected character ${JSON.stringify(ch)}`);
  };

  const parseObject = (): JsonNode => {
    const start = pos++;
    const members: JsonMember[] = [];
    const value: Record<string, unknown> = {};
    skip();
    if (text[pos] === '}') return { kind: 'object', start, end: ++pos, value, members };
    for (;;) {
      skip();
      if (text[pos] === '}' && members.length > 0) {
        if (!dialect.trailingCommas) fail('trailing comma before }');
        break;
      }
      if (text[pos] !== '"') fail('expected a "quoted" property name');
      const keyStart = pos;
      const key = parseString();
      skip();
      if (text[pos] !== ':') fail('expected : after a property name');
      pos++;
      const node = parseValue();
      members.push({ key, keyStart, value: node });
      Object.defineProperty(value, key, { value: node.value, enumerable: true, writable: true, configurable: true });
      skip();
      if (text[pos] === ',') {
        pos++;
        continue;
      }
      if (text[pos] === '}') break;
      fail('expected , or } after a property value');
    }
    return { kind: 'object', start, end: ++pos, value, members };
  };

  const parseArray = (): JsonNode => {
    const start = pos++;
    const value: unknown[] = [];
    skip();
    if (text[pos] === ']') return { kind: 'array', start, end: ++pos, value };
    for (;;) {
      skip();
      if (text[pos] === ']' && value.length > 0) {
        if (!dialect.trailingCommas) fail('trailing comma before ]');
        break;
      }
      value.push(parseValue().value);
      skip();
      if (text[pos] === ',') {
        pos++;
        continue;
      }
      if (text[pos] === ']') break;
      fail('expected , or ] after an array item');
    }
    return { kind: 'array', start, end: ++pos, value };
  };

  const root = parseValue();
  skip();
  if (pos < text.length) fail('unexpected text after the JSON value');
  return { root, comments };
}
