/**
 * undici's fetch (Node's `fetch`) rejects every failure to get an answer, a refused connection, a reset socket,
 * a DNS failure, as the same plain `TypeError` with the message "fetch failed" and the socket's error (when there
 * is one) as its `cause`. It carries no code of its own, and the cause may be missing: its text is the only
 * thing that tells it from a `TypeError` a bug throws. Recognised here, in one named predicate; test/errors.test.ts
 * refuses the text anywhere else in src/.
 */
export function isFetchFailure(error: unknown): error is TypeError & { cause?: unknown } {
  return error instanceof TypeError && error.message === 'fetch failed'
}
