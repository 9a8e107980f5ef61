// `serve --inspect`: connect every lifecycle actor to the Stately inspector. The Sky inspector
// streams inspection events over a websocket and prints a live URL to open in a browser; it needs
// outbound internet, so it is opt-in and loaded only when asked for.
import type { InspectionEvent } from 'xstate';

export async function createStatelyInspector(log: (msg: string, f?: Record<string, unknown>) => void): Promise<(e: InspectionEvent) => void> {
  const { createSkyInspector } = await import('@statelyai/inspect');
  const inspector = createSkyInspector({
    onerror: (error) => log('stately inspector unavailable', { error: error.message }),
  });
  return inspector.inspect as (e: InspectionEvent) => void;
}
