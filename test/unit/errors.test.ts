// Unit tests of the error-code table and the error classes (src/rpc/errors.ts): each class carries
// its code, its name, and knows its wire form.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ERROR_CODES, RpcError, ParseError, InvalidRequestError, MethodNotFoundError, InvalidParamsError,
  InternalError, ModeNotFoundError, TaskNotFoundError, SessionExpiredError, ValidationError,
  ToolRestrictionError, FileRestrictionError, MissingRequiredClientCapabilityError, UnsupportedProtocolVersionError,
  type ErrorName,
  HeaderMismatchError,
} from '../../src/rpc/errors.js';

/** One instance of every class, keyed by the table entry it stands for. */
const INSTANCES: Record<ErrorName, [className: string, error: RpcError]> = {
  PARSE_ERROR: ['ParseError', new ParseError()],
  INVALID_REQUEST: ['InvalidRequestError', new InvalidRequestError()],
  METHOD_NOT_FOUND: ['MethodNotFoundError', new MethodNotFoundError('x/y')],
  INVALID_PARAMS: ['InvalidParamsError', new InvalidParamsError('bad')],
  INTERNAL_ERROR: ['InternalError', new InternalError()],
  MODE_NOT_FOUND: ['ModeNotFoundError', new ModeNotFoundError('nope', ['code', 'ask'])],
  TASK_NOT_FOUND: ['TaskNotFoundError', new TaskNotFoundError('ses_1')],
  SESSION_EXPIRED: ['SessionExpiredError', new SessionExpiredError('ses_1', 3600)],
  VALIDATION_ERROR: ['ValidationError', new ValidationError('bad')],
  TOOL_RESTRICTION_ERROR: ['ToolRestrictionError', new ToolRestrictionError('no')],
  FILE_RESTRICTION_ERROR: ['FileRestrictionError', new FileRestrictionError('no')],
  HEADER_MISMATCH: ['HeaderMismatchError', new HeaderMismatchError('Mcp-Method')],
  MISSING_REQUIRED_CLIENT_CAPABILITY: ['MissingRequiredClientCapabilityError', new MissingRequiredClientCapabilityError('no', { roots: {} })],
  UNSUPPORTED_PROTOCOL_VERSION: ['UnsupportedProtocolVersionError', new UnsupportedProtocolVersionError('1900-01-01', ['2026-07-28'])],
};

/** The codes the design fixes (DESIGN.md §4), written out independently of the source table. */
const EXPECTED: Record<ErrorName, number> = {
  PARSE_ERROR: -32700, INVALID_REQUEST: -32600, METHOD_NOT_FOUND: -32601, INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603, MODE_NOT_FOUND: -32001, TASK_NOT_FOUND: -32002, SESSION_EXPIRED: -32003,
  VALIDATION_ERROR: -32004, TOOL_RESTRICTION_ERROR: -32005, FILE_RESTRICTION_ERROR: -32006,
  HEADER_MISMATCH: -32020, MISSING_REQUIRED_CLIENT_CAPABILITY: -32021, UNSUPPORTED_PROTOCOL_VERSION: -32022,
};

test('the table holds exactly the designed codes', () => {
  assert.deepEqual({ ...ERROR_CODES }, EXPECTED);
});

test('every code in the table is unique', () => {
  const codes = Object.values(ERROR_CODES);
  assert.equal(new Set(codes).size, codes.length);
});

test('protocol codes are in the JSON-RPC reserved range and app codes in the server range', () => {
  for (const [name, code] of Object.entries(ERROR_CODES)) {
    assert.ok(Number.isInteger(code), name);
    assert.ok((code >= -32768 && code <= -32600) || (code >= -32099 && code <= -32000), `${name} ${code}`);
  }
});

test('every table entry has a class, and each class carries its code', () => {
  assert.deepEqual(Object.keys(INSTANCES).sort(), Object.keys(ERROR_CODES).sort());
  for (const [name, [, err]] of Object.entries(INSTANCES) as [ErrorName, [string, RpcError]][]) {
    assert.equal(err.code, ERROR_CODES[name], name);
  }
});

test('each class name matches its table entry and is the error name', () => {
  for (const [name, [className, err]] of Object.entries(INSTANCES)) {
    assert.equal(err.name, className);
    assert.equal(err.constructor.name, className);
    // PascalCase class name → SCREAMING_SNAKE; the table drops the "_ERROR" suffix for some entries.
    const snake = className.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
    assert.ok(snake === name || snake === `${name}_ERROR`, `${className} vs ${name}`);
  }
});

test('every class is an RpcError and an Error with a stack', () => {
  for (const [, err] of Object.values(INSTANCES)) {
    assert.ok(err instanceof RpcError);
    assert.ok(err instanceof Error);
    assert.equal(typeof err.stack, 'string');
  }
});

test('a subclass of an error class reports its own name and keeps the code', () => {
  class SchemaFailure extends ValidationError {}
  const e = new SchemaFailure('x');
  assert.equal(e.name, 'SchemaFailure');
  assert.equal(e.code, -32004);
});

test('toWire gives code and message, and data only when there is some', () => {
  assert.deepEqual(new InvalidParamsError('bad cursor').toWire(), { code: -32602, message: 'bad cursor' });
  assert.equal(Object.hasOwn(new InvalidParamsError('bad cursor').toWire(), 'data'), false);
  assert.deepEqual(new InvalidParamsError('bad', { path: '/a' }).toWire(), { code: -32602, message: 'bad', data: { path: '/a' } });
  assert.deepEqual(new ValidationError('bad', 'because').toWire(), { code: -32004, message: 'bad', data: 'because' });
  assert.deepEqual(new RpcError(-32050, 'custom', 0).toWire(), { code: -32050, message: 'custom', data: 0 });
});

test('toWire output survives a JSON round trip unchanged for every class', () => {
  for (const [, err] of Object.values(INSTANCES)) {
    const wire = err.toWire();
    assert.deepEqual(JSON.parse(JSON.stringify(wire)), wire);
    assert.deepEqual(Object.keys(wire).filter((k) => !['code', 'message', 'data'].includes(k)), []);
  }
});

test('default messages: Parse error, Invalid Request, Internal error', () => {
  assert.equal(new ParseError().message, 'Parse error');
  assert.equal(new InvalidRequestError().message, 'Invalid Request');
  assert.deepEqual(new InternalError().toWire(), { code: -32603, message: 'Internal error' });
});

test('MethodNotFoundError names the method', () => {
  assert.deepEqual(new MethodNotFoundError('tools/frobnicate').toWire(), { code: -32601, message: 'Method not found: "tools/frobnicate"' });
});

test('ModeNotFoundError lists the available slugs in its data, as a copy', () => {
  const available = ['code', 'ask'];
  const e = new ModeNotFoundError('nope', available);
  const data = e.toWire().data as { message: string; slug: string; available_modes: string[] };
  assert.equal(data.slug, 'nope');
  assert.deepEqual(data.available_modes, ['code', 'ask']);
  assert.match(data.message, /nope/);
  available.push('debug');
  assert.deepEqual(data.available_modes, ['code', 'ask']);
});

test('session errors carry the session id, and expiry the timeout', () => {
  const missing = new TaskNotFoundError('ses_abc').toWire().data as Record<string, unknown>;
  assert.equal(missing.session_id, 'ses_abc');
  assert.equal(typeof missing.message, 'string');
  const expired = new SessionExpiredError('ses_abc', 60).toWire().data as Record<string, unknown>;
  assert.equal(expired.session_id, 'ses_abc');
  assert.equal(expired.timeout_seconds, 60);
});
