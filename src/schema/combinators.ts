// Compilers for allOf, anyOf, oneOf and not, and the summary given when no alternative matches.
// A failed anyOf/oneOf yields one or a few pointed issues, never every branch's full list.
import {
  type Check, type KeywordCompiler, type KeywordContext, MAX_ISSUES, type SchemaIssue, expectSchemaArray, report,
} from './context.js';
import { describeValue, hasOwn, typeName } from './values.js';
import { listWithOr } from './keywords.js';

/**
 * The types a (compile-checked) schema admits at its top, when they can be read off it: its
 * `type`, the union over an anyOf/oneOf, or what its `$ref` leads to. Undefined when unknown.
 * Used only for messages; `hops` bounds the walk through references (they may form a cycle).
 */
function staticTypes(schema: unknown, ctx: KeywordContext, hops = 0): string[] | undefined {
  if (schema === false) return [];
  if (typeof schema !== 'object' || schema === null || hops > 8) return undefined;
  const s = schema as Record<string, unknown>;
  if (hasOwn(s, 'type')) {
    const t = s['type'];
    return typeof t === 'string' ? [t] : Array.isArray(t) ? t.filter((x): x is string => typeof x === 'string') : undefined;
  }
  for (const k of ['anyOf', 'oneOf']) {
    const branches = hasOwn(s, k) ? s[k] : undefined;
    if (!Array.isArray(branches)) continue;
    const union: string[] = [];
    for (const b of branches) {
      const ts = staticTypes(b, ctx, hops + 1);
      if (ts === undefined) return undefined;
      for (const t of ts) if (!union.includes(t)) union.push(t);
    }
    return union;
  }
  const ref = hasOwn(s, '$ref') ? s['$ref'] : undefined;
  return typeof ref === 'string' ? staticTypes(ctx.lookup(ref), ctx, hops + 1) : undefined;
}

/** Runs one branch into a scratch list; a null branch accepts everything. */
function attempt(check: Check | null, v: unknown, p: string): SchemaIssue[] {
  const scratch: SchemaIssue[] = [];
  if (check !== null) check(v, p, scratch);
  return scratch;
}

/**
 * Summarises a value that matched no alternative. Branches rejected for their type alone are set
 * aside: if that is all of them, the message lists the acceptable types; if one branch remains,
 * its own issues are the useful ones; otherwise the closest branch's first issue is quoted.
 */
function reportNoMatch(
  keyword: string, failures: SchemaIssue[][], types: readonly (string[] | undefined)[],
  v: unknown, p: string, out: SchemaIssue[],
): void {
  const wrongType = (issues: SchemaIssue[]): boolean => issues.some((i) => i.keyword === 'type' && i.path === p);
  const candidates = failures.filter((f) => !wrongType(f));
  if (candidates.length === 0 && types.every((t) => t !== undefined)) {
    const union = [...new Set(types.flatMap((t) => t ?? []))];
    report(out, p, 'type', `expected ${listWithOr(union)}, got ${typeName(v)}`);
    return;
  }
  if (candidates.length === 1) {
    for (const issue of candidates[0]!) if (out.length < MAX_ISSUES) out.push(issue);
    return;
  }
  const pool = candidates.length > 0 ? candidates : failures;
  let best = pool[0]!;
  for (const f of pool) if (f.length < best.length) best = f;
  const more = best.length > 1 ? ` (and ${best.length - 1} more)` : '';
  report(out, p, keyword,
    `matches none of the ${failures.length} alternatives in ${keyword}; the closest (#${failures.indexOf(best) + 1}) fails with: ${best[0]!.message}${more}`);
}

export const compileAllOf: KeywordCompiler = (arg, ctx) => {
  const checks = expectSchemaArray(arg, ctx).flatMap((s, i) => ctx.sub(s, `/${i}`) ?? []);
  if (checks.length === 0) return null;
  return (v, p, out) => { for (const c of checks) if (out.length < MAX_ISSUES) c(v, p, out); };
};

export const compileAnyOf: KeywordCompiler = (arg, ctx) => {
  const schemas = expectSchemaArray(arg, ctx);
  const checks = schemas.map((s, i) => ctx.sub(s, `/${i}`));
  if (checks.includes(null)) return null;
  const types = schemas.map((s) => staticTypes(s, ctx));
  return (v, p, out) => {
    const failures: SchemaIssue[][] = [];
    for (const c of checks) {
      const issues = attempt(c, v, p);
      if (issues.length === 0) return;
      failures.push(issues);
    }
    reportNoMatch('anyOf', failures, types, v, p, out);
  };
};

export const compileOneOf: KeywordCompiler = (arg, ctx) => {
  const schemas = expectSchemaArray(arg, ctx);
  const checks = schemas.map((s, i) => ctx.sub(s, `/${i}`));
  const types = schemas.map((s) => staticTypes(s, ctx));
  return (v, p, out) => {
    const failures: SchemaIssue[][] = [];
    let matched = -1;
    for (let i = 0; i < checks.length; i++) {
      const issues = attempt(checks[i] ?? null, v, p);
      if (issues.length > 0) { failures.push(issues); continue; }
      if (matched >= 0) {
        report(out, p, 'oneOf', `expected exactly one alternative in oneOf to match, but #${matched + 1} and #${i + 1} both do`);
        return;
      }
      matched = i;
    }
    if (matched < 0) reportNoMatch('oneOf', failures, types, v, p, out);
  };
};

export const compileNot: KeywordCompiler = (arg, ctx) => {
  if (arg === false) return null;
  const check = ctx.sub(arg, '');
  return (v, p, out) => {
    if (attempt(check, v, p).length === 0) {
      report(out, p, 'not', `expected a value that does not match the schema under "not", got ${describeValue(v)}`);
    }
  };
};
