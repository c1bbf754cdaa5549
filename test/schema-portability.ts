// The rules a portable tool schema follows (no type arrays or null types, every value typed, every
// property described, every array with items, only widely understood keywords), as one checker.
/** Keywords a schema node may use: the subset the strictest function-calling dialects understand. */
const PORTABLE_KEYWORDS = new Set([
  'type', 'description', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'default',
  'minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems', 'anyOf',
]);
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array']);

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Every rule broken under `schema`, each as "path: what". `described` is true where the node is a
 * property (whose meaning a model cannot guess without a description).
 */
export function portabilityProblems(schema: unknown, path: string, described = false): string[] {
  if (!isNode(schema)) return [`${path}: a schema must be an object, not ${JSON.stringify(schema)}`];
  const out: string[] = [];
  for (const key of Object.keys(schema)) if (!PORTABLE_KEYWORDS.has(key)) out.push(`${path}: keyword ${key} is not in the portable subset`);
  const branches = schema.anyOf;
  if (Array.isArray(schema.type)) out.push(`${path}: type is an array (${JSON.stringify(schema.type)}); use anyOf or leave the field out`);
  else if (schema.type !== undefined && !TYPES.has(schema.type as string)) out.push(`${path}: type ${JSON.stringify(schema.type)} (null is not portable: leave the field out instead)`);
  else if (schema.type === undefined && !Array.isArray(branches)) out.push(`${path}: no type`);
  if (described && (typeof schema.description !== 'string' || schema.description.trim() === '')) out.push(`${path}: no description`);
  if (Array.isArray(branches)) branches.forEach((b, i) => out.push(...portabilityProblems(b, `${path}.anyOf[${i}]`)));
  if (schema.type === 'array') {
    if (schema.items === undefined) out.push(`${path}: an array without items`);
    else out.push(...portabilityProblems(schema.items, `${path}.items`));
  }
  if (isNode(schema.properties)) {
    for (const [name, sub] of Object.entries(schema.properties)) out.push(...portabilityProblems(sub, `${path}.properties.${name}`, true));
  }
  if (Array.isArray(schema.required)) {
    for (const name of schema.required) if (!isNode(schema.properties) || !(name as string in schema.properties)) out.push(`${path}: requires ${String(name)}, which it does not define`);
  }
  if (isNode(schema.additionalProperties)) out.push(...portabilityProblems(schema.additionalProperties, `${path}.additionalProperties`));
  return out;
}
