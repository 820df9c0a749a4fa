/** The largest request body the API reads, in bytes; larger ones are refused before parsing (413). */
export const MAX_BODY_BYTES = 256 * 1024;
