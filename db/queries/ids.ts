/**
 * New identifiers (cuid2) for the statements that insert rows. The package is loaded with the
 * first id rather than when a write function's module is imported: its evaluation (a SHA-3,
 * bignumber.js, Web Crypto's set-up) is a large share of a cold start's import, and a request
 * refused before its statement never needs it.
 */
let loading: Promise<() => string> | undefined;

/** cuid2's `createId`, once loaded. */
export function idMaker(): Promise<() => string> {
  loading ??= import('@paralleldrive/cuid2').then((cuid2) => cuid2.createId);
  return loading;
}
