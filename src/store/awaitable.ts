// What a repository method returns: a plain value on SQLite (bun:sqlite is synchronous), a
// Promise on PostgreSQL. Code above src/store sees only the interfaces and always awaits.
export type Awaitable<T> = T | Promise<T>;

/**
 * A repository interface as the SQLite implementation provides it: every Awaitable return made
 * plain, so store-level tests (and SQLite-only code) call it synchronously.
 * `Keep` names members left as declared (e.g. a durability gate that is a promise on purpose).
 */
export type Sync<R, Keep extends keyof R = never> = {
  [K in keyof R]: K extends Keep ? R[K] : R[K] extends (...a: infer A) => Awaitable<infer T> ? (...a: A) => T : R[K];
};
