// The logger: records go to stderr (or a log file) and, once a client asks with logging/setLevel,
// to the client as notifications/message. It never touches stdout.

/** RFC 5424 levels, in MCP's order (lowest first). One table. */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const ALIASES: Record<string, LogLevel> = { warn: 'warning', err: 'error', fatal: 'critical', crit: 'critical' };

/** Parses a level name case-insensitively ("INFO", "Warn"); undefined when unknown. */
export function parseLogLevel(text: string): LogLevel | undefined {
  const lower = text.toLowerCase();
  if ((LOG_LEVELS as readonly string[]).includes(lower)) return lower as LogLevel;
  return ALIASES[lower];
}

export const levelRank = (level: LogLevel): number => LOG_LEVELS.indexOf(level);

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
