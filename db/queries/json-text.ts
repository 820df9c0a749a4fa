/**
 * One item of a list as Postgres wrote it: JSON text, passed to the client without being parsed
 * and serialised again (the larger part of the API's CPU per answer at `limit=250`).
 */
export type JsonText<T> = string & { readonly __json?: T };
