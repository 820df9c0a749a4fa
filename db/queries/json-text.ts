/**
 * One item of a list as Postgres wrote it: JSON text, passed to the client without being parsed
 * and serialised again (the larger part of the API's CPU per answer at `limit=250`).
 */
export type JsonText<T> = string & { readonly __json?: T };

/** The value, where the code needs one of its fields (a created id). */
export const parsed = <T>(text: JsonText<T>): T => JSON.parse(text) as T;
