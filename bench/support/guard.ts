// A hard stop for a bench process: exit 2 if it is still running TIMEOUT_S + 30 s after start-up.
/** Everything stops by itself: a hard guard (unref'd) in case something hangs past the budget. */
export function hardStop(name: string, timeoutS: number): void {
  const timer = setTimeout(() => {
    console.error(`${name}: still running after ${timeoutS + 30} s, giving up`);
    process.exit(2);
  }, (timeoutS + 30) * 1000);
  timer.unref();
}
