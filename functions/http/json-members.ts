import type { FieldError } from './problem.ts';

/** An object or array being read, linked to its parent so a path is built only when one is needed. */
interface Frame {
  parent: Frame | undefined;
  /** Where this value sits in its parent. */
  at: string | number | undefined;
  /** Member names seen so far (objects only). */
  keys?: Set<string>;
  expectKey: boolean;
  key?: string;
  index: number;
}

const pathOf = (frame: Frame | undefined, last: string): string => {
  const parts: string[] = [last];
  for (let f = frame; f?.parent; f = f.parent) parts.push(String(f.at === '' ? '""' : f.at));
  return parts.reverse().join('.');
};

/**
 * Member names given twice in one object of a JSON text (already known to be valid JSON), which
 * JSON.parse would silently resolve to the last (I-JSON, RFC 7493, forbids them). Names are
 * compared once unescaped: `"a"` and `"\u0061"` are the same name. Iterative: any depth is fine.
 */
export function duplicateMembers(text: string): FieldError[] {
  const found: FieldError[] = [];
  let top: Frame | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      let end = i + 1;
      while (text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c /* \ */ ? 2 : 1;
      if (top?.keys && top.expectKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (top.keys.has(key)) {
          found.push({ path: pathOf(top, key === '' ? '""' : key), message: 'is given more than once' });
        }
        top.keys.add(key);
        top.key = key;
        top.expectKey = false;
      }
      i = end;
    } else if (ch === 0x7b /* { */ || ch === 0x5b /* [ */) {
      const at = top ? (top.keys ? top.key : top.index) : undefined;
      top = {
        parent: top,
        at,
        expectKey: ch === 0x7b,
        index: 0,
        ...(ch === 0x7b ? { keys: new Set() } : {}),
      };
    } else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) {
      top = top?.parent;
    } else if (ch === 0x2c /* , */ && top) {
      if (top.keys) top.expectKey = true;
      else top.index++;
    }
  }
  return found;
}
