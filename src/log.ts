// Structured logs: one JSON line per entry on stderr (stdout belongs to the CLI's JSON output).
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type Log = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => void;

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function createLogger(min: LogLevel): Log {
  return (level, msg, fields = {}) => {
    if (ORDER[level] < ORDER[min]) return;
    process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
  };
}

/** The levels a logger created with `min` writes (a worker thread posts only those back). */
export const levelsFrom = (min: LogLevel): LogLevel[] => (Object.keys(ORDER) as LogLevel[]).filter((l) => ORDER[l] >= ORDER[min]);
