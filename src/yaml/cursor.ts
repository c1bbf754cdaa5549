// The YAML reader's shared state: the source text, the read position, line/column lookup, anchors,
// nesting depth and alias accounting. It never decides YAML structure; the block/flow readers do.
import type { SourcePosition } from './error.js';
import { YamlError } from './error.js';

/** Character codes the readers test against (one table). */
export const CH = {
  TAB: 9, LF: 10, CR: 13, SPACE: 32, BANG: 33, DQUOTE: 34, HASH: 35, PERCENT: 37, AMP: 38,
  SQUOTE: 39, STAR: 42, PLUS: 43, COMMA: 44, DASH: 45, DOT: 46, DIGIT_1: 49, DIGIT_9: 57, COLON: 58, GT: 62, QUESTION: 63, AT: 64,
  LBRACKET: 91, BACKSLASH: 92, RBRACKET: 93, BACKTICK: 96, LBRACE: 123, PIPE: 124, RBRACE: 125,
} as const;

/** Space, tab or end of input: what must follow an indicator such as "- " or ": ". */
export function isBlankOrEnd(code: number): boolean {
  return code === CH.SPACE || code === CH.TAB || code === CH.LF || code === CH.CR || Number.isNaN(code);
}

export function isFlowIndicator(code: number): boolean {
  return code === CH.COMMA || code === CH.LBRACKET || code === CH.RBRACKET || code === CH.LBRACE || code === CH.RBRACE;
}

export interface YamlLimits { maxDepth: number; maxAliasExpansion: number; maxAliasText: number }

/** How much had been built when a node started: nodes, and characters of scalar text. */
export interface Mark { readonly nodes: number; readonly chars: number }

/** An anchored value and what it stands for in full: its nodes and the characters of its scalars. */
interface AnchorEntry { value: unknown; weight: number; chars: number }

export class YamlCursor {
  readonly text: string;
  /** Offset of the next character to read. */
  pos = 0;
  readonly positions = new WeakMap<object, SourcePosition>();
  private readonly lineStarts: number[] = [0];
  private readonly anchors = new Map<string, AnchorEntry>();
  private readonly limits: YamlLimits;
  private depth = 0;
  /** Nodes built so far, an alias counting as the full size of what it names. */
  private weight = 0;
  private aliasWeight = 0;
  /**
   * Characters of scalar text built so far, counted the same way. Nodes alone miss a bomb made of
   * a few long strings, each named thousands of times: few nodes, gigabytes once serialised.
   */
  private chars = 0;
  private aliasChars = 0;

  constructor(text: string, limits: YamlLimits) {
    this.text = text;
    this.limits = limits;
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.lineStarts.push(i + 1);
  }

  /** Character code at an offset; NaN past the end (so every comparison is false). */
  code(offset: number = this.pos): number {
    return this.text.charCodeAt(offset);
  }

  atEnd(offset: number = this.pos): boolean {
    return offset >= this.text.length;
  }

  lineIndex(offset: number): number {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.lineStarts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** 0-based column of an offset (its indentation when it is the first character on its line). */
  column(offset: number): number {
    return offset - (this.lineStarts[this.lineIndex(offset)] as number);
  }

  /** True when the text between two offsets crosses a line break. */
  spansLines(start: number, end: number): boolean {
    return end > start && this.lineIndex(start) !== this.lineIndex(end - 1);
  }

  positionOf(offset: number): SourcePosition {
    const index = this.lineIndex(offset);
    return { line: index + 1, column: offset - (this.lineStarts[index] as number) + 1 };
  }

  fail(offset: number, message: string): never {
    const where = this.positionOf(Math.min(offset, this.text.length));
    throw new YamlError(message, where.line, where.column);
  }

  /** Records where a mapping or sequence starts, for loaders that report per-entry lines. */
  place(node: object, offset: number): void {
    this.positions.set(node, this.positionOf(offset));
  }

  /** Called when a collection opens; refuses nesting beyond the limit before the stack can overflow. */
  enter(offset: number): void {
    this.depth += 1;
    if (this.depth > this.limits.maxDepth) this.fail(offset, `collections nested deeper than ${this.limits.maxDepth} levels`);
  }

  leave(): void {
    this.depth -= 1;
  }

  /** One node built; `text` is the length of a scalar's text (0 for a collection). */
  countNode(text = 0): void {
    this.weight += 1;
    this.chars += text;
  }

  /** A mark taken before a node is read; `defineAnchor` uses it to learn the node's size. */
  mark(): Mark {
    return { nodes: this.weight, chars: this.chars };
  }

  defineAnchor(name: string, value: unknown, mark: Mark): void {
    this.anchors.set(name, { value, weight: Math.max(1, this.weight - mark.nodes), chars: this.chars - mark.chars });
  }

  /** Resolves `*name` to the anchored value itself (same reference), counting its expanded size. */
  useAlias(name: string, offset: number): unknown {
    const entry = this.anchors.get(name);
    if (entry === undefined) this.fail(offset, `alias "*${name}" names no anchor defined before it`);
    this.aliasWeight += entry.weight;
    this.weight += entry.weight;
    this.aliasChars += entry.chars;
    this.chars += entry.chars;
    if (this.aliasWeight > this.limits.maxAliasExpansion) {
      this.fail(offset, `aliases expand to more than ${this.limits.maxAliasExpansion} nodes`);
    }
    if (this.aliasChars > this.limits.maxAliasText) {
      this.fail(offset, `aliases expand to more than ${this.limits.maxAliasText} characters of text`);
    }
    return entry.value;
  }
}
