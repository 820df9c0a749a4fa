/** Longest base slug, leaving room for a `-<n>` suffix within the 255-character limit. */
const MAX_BASE = 240;

/**
 * A URL-safe slug from an agent name: accents folded, lower-case ASCII letters and digits in words
 * joined by single hyphens (`Front Desk — Café` → `front-desk-cafe`); `agent` when nothing is left.
 */
export function slugFrom(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, MAX_BASE)
    .replace(/^-+|-+$/g, '');
  return slug || 'agent';
}
