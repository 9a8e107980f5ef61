// Chaining that stays synchronous on SQLite: the repositories answer plain values there and
// promises on PostgreSQL, and a create's write on SQLite should run without a microtask per step.
// (Not named `then`: a module exporting `then` makes its namespace a thenable, and a dynamic
// import of it resolves to whatever that function returns.)

/**
 * `f(v)` at once when `v` is a plain value (a SQLite repository's answer), else once it settles
 * (PostgreSQL's): a create's write on SQLite then runs without a promise or a microtask.
 */
export function andThen<T, U>(v: T | PromiseLike<T>, f: (t: T) => U | Promise<U>): U | Promise<U> {
  return v !== null && typeof (v as PromiseLike<T>)?.then === 'function' ? Promise.resolve(v as PromiseLike<T>).then(f) : f(v as T);
}
/** A write that runs without a savepoint of its own (group-commit.ts: a create cannot fail half-way). */
export const NO_SAVEPOINT = { savepoint: false } as const;

