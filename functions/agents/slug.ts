import { AGENT_SLUG_MAX } from '#contract/limits.ts';
import { conflict } from '../http/problem.ts';

/** Longest base slug, leaving room for a `-<n>` suffix (up to 9 digits) within the limit. */
const MAX_BASE = AGENT_SLUG_MAX - 15;

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

/** The 409 of a slug another agent of the workspace holds (a create's or a PATCH's). */
export const slugTaken = (slug: string) =>
  conflict(`The slug "${slug}" is already used by another agent in this workspace.`, [
    { path: 'slug', message: 'is already used by another agent in this workspace' },
  ]);
