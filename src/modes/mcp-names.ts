// Qualified MCP tool names (mcp__<server>__<tool>) and `*` wildcard patterns over them.
// Pure string work with no regular expressions, so a hostile pattern cannot cause backtracking.

const PREFIX = 'mcp__';
const SEPARATOR = '__';

export interface QualifiedName { server: string; tool: string }

/** Splits `mcp__server__tool` at the first `__` after the prefix; null when it is not one. */
export function parseQualifiedName(name: string): QualifiedName | null {
  if (!name.startsWith(PREFIX)) return null;
  const rest = name.slice(PREFIX.length);
  const cut = rest.indexOf(SEPARATOR);
  if (cut <= 0) return null;
  const server = rest.slice(0, cut);
  const tool = rest.slice(cut + SEPARATOR.length);
  return tool.length > 0 ? { server, tool } : null;
}

/** Builds `mcp__server__tool`; refuses parts that would not parse back to themselves. */
export function formatQualifiedName(server: string, tool: string): string {
  if (server.length === 0 || tool.length === 0) throw new TypeError('an MCP server and tool name must not be empty');
  if (server.includes(SEPARATOR)) throw new TypeError(`an MCP server name must not contain "${SEPARATOR}": ${server}`);
  return `${PREFIX}${server}${SEPARATOR}${tool}`;
}

/** A pattern split at its `*`s: first and last pieces are anchored, the middle ones float. */
type Compiled = { exact: string } | { pieces: string[] };

function compile(pattern: string): Compiled {
  return pattern.includes('*') ? { pieces: pattern.split('*') } : { exact: pattern };
}

function matchCompiled(name: string, c: Compiled): boolean {
  if ('exact' in c) return name === c.exact;
  const { pieces } = c;
  const first = pieces[0]!;
  const last = pieces[pieces.length - 1]!;
  if (name.length < first.length + last.length) return false;
  if (!name.startsWith(first) || !name.endsWith(last)) return false;
  // Greedy left-to-right search of the middle pieces is exact for `*`-only globs: taking the
  // earliest occurrence of each piece never prevents a later piece from matching.
  let at = first.length;
  const end = name.length - last.length;
  for (let i = 1; i < pieces.length - 1; i++) {
    const piece = pieces[i]!;
    const found = name.indexOf(piece, at);
    if (found < 0 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}

/** True when `name` matches `pattern` (`*` = any run of characters, including none). */
export function matchesToolPattern(name: string, pattern: string): boolean {
  return matchCompiled(name, compile(pattern));
}

/** Compiles a list of patterns once; the returned predicate is true when any pattern matches. */
export function compileToolPatterns(patterns: readonly string[]): (name: string) => boolean {
  const exact = new Set<string>();
  const globs: Compiled[] = [];
  for (const p of patterns) {
    const c = compile(p);
    if ('exact' in c) exact.add(c.exact);
    else globs.push(c);
  }
  return (name) => exact.has(name) || globs.some((g) => matchCompiled(name, g));
}
