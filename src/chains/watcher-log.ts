// The watchers' trouble reports (message, error) as log.ts lines: JSON with time, level `warn`,
// the chain, and the error's message, so the configured logLevel applies to them too.
import { createLogger, type Log } from '../log';

export type WatcherLog = (message: string, error?: unknown) => void;

/** `who` names the watcher in the message ("evm watcher: tick failed"). */
export function watcherLog(log: Log, who: string, chain: string): WatcherLog {
  return (message, error) =>
    log('warn', `${who}: ${message}`, error === undefined ? { chain } : { chain, error: error instanceof Error ? error.message : String(error) });
}

/** For a watcher built without a logger (tests, tools): warnings and errors only. */
export const defaultWatcherLog = (who: string, chain: string): WatcherLog => watcherLog(createLogger('warn'), who, chain);
