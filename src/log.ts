// The logger: records go to stderr (or a log file) and, once a client asks with logging/setLevel,
// to the client as notifications/message. It never touches stdout.

/**
 * The RFC 5424 levels, in MCP's order (least severe first), with what this server writes at each.
 * One table: --help prints it and docs/configuration.md shows it (test/protocol/log-levels.test.ts compares).
 */
export const LOG_LEVEL_TABLE = [
  { level: 'debug', writes: 'tracing detail: the client that initialized, ignored messages, watched folders, session sweeps, IPC reconnect attempts' },
  { level: 'info', writes: 'what the server does: mode reloads, mode-set changes, IPC connections' },
  { level: 'notice', writes: 'events worth knowing that are not problems' },
  { level: 'warning', writes: 'problems it works around: a skipped mode, an unreadable file, client roots it cannot use' },
  { level: 'error', writes: 'failures: a request that hit a bug, a reload or file watch that failed' },
  { level: 'critical', writes: 'none: the server has no record this severe, so the log is silent' },
  { level: 'alert', writes: 'none, as critical' },
  { level: 'emergency', writes: 'none, as critical' },
] as const;
export type LogLevel = (typeof LOG_LEVEL_TABLE)[number]['level'];
export const LOG_LEVELS: readonly LogLevel[] = LOG_LEVEL_TABLE.map((r) => r.level);

const ALIASES: Record<string, LogLevel> = { warn: 'warning', err: 'error', fatal: 'critical', crit: 'critical' };

/** Parses a level name case-insensitively ("INFO", "Warn"); undefined when unknown. */
export function parseLogLevel(text: string): LogLevel | undefined {
  const lower = text.toLowerCase();
  if ((LOG_LEVELS as readonly string[]).includes(lower)) return lower as LogLevel;
  return ALIASES[lower];
}

export const levelRank = (level: LogLevel): number => LOG_LEVELS.indexOf(level);

/** The level table as --help prints it: a heading, then one indented line per level. */
export function logLevelHelp(): string {
  const width = Math.max(...LOG_LEVELS.map((l) => l.length));
  const aliases = Object.keys(ALIASES);
  return [
    'Log levels, least severe first; each writes its own records and all more severe ones',
    `(any case; ${aliases.slice(0, -1).join(', ')} and ${aliases.at(-1)!} are accepted too):`,
    ...LOG_LEVEL_TABLE.map((r) => `  ${r.level.padEnd(width)}  ${r.writes}`),
  ].join('\n');
}

export interface LogRecord { level: LogLevel; logger: string; message: string; data?: unknown }
export type LogForward = (record: LogRecord) => void;

export interface Logger {
  debug(message: string, data?: unknown): void;
  info(message: string, data?: unknown): void;
  notice(message: string, data?: unknown): void;
  warn(message: string, data?: unknown): void;
  error(message: string, data?: unknown): void;
  /** A logger whose records carry another component name. */
  child(name: string): Logger;
}

export interface LogSink {
  /** Minimum level written to stderr or the file. */
  level: LogLevel;
  /** Where the text goes: stderr, or the log file's stream (never stdout). */
  write(line: string): void;
  /** Set by the MCP layer when the client enabled logging; receives every record. */
  forward: LogForward | null;
}

function describe(data: unknown): string {
  if (data === undefined) return '';
  if (data instanceof Error) return ` ${data.stack ?? data.message}`;
  try { return ` ${JSON.stringify(data)}`; } catch { return ` ${String(data)}`; }
}

export function createLogger(sink: LogSink, name = 'server'): Logger {
  const emit = (level: LogLevel, message: string, data?: unknown): void => {
    if (levelRank(level) >= levelRank(sink.level)) {
      sink.write(`${new Date().toISOString()} ${level.toUpperCase()} [${name}] ${message}${describe(data)}\n`);
    }
    sink.forward?.({ level, logger: name, message, data: data instanceof Error ? data.message : data });
  };
  return {
    debug: (m, d) => emit('debug', m, d),
    info: (m, d) => emit('info', m, d),
    notice: (m, d) => emit('notice', m, d),
    warn: (m, d) => emit('warning', m, d),
    error: (m, d) => emit('error', m, d),
    child: (child) => createLogger(sink, child),
  };
}

/** A logger that drops everything: for unit tests and library use. */
export const silentLogger: Logger = {
  debug() {}, info() {}, notice() {}, warn() {}, error() {},
  child() { return silentLogger; },
};
