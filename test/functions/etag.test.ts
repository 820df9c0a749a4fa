import { describe, expect, it } from 'vitest';
import { ifMatchAllows, parseIfMatch, requiredIfMatch } from '#functions/http/etag.ts';
import { HttpProblem } from '#functions/http/problem.ts';

const TAG = '"ckagent0000000000000001.1793530800123"';

describe('parseIfMatch (RFC 9110 §13.1.1)', () => {
  it('absent without the header', () => {
    expect(parseIfMatch(undefined)).toEqual({ kind: 'absent' });
    expect(parseIfMatch([])).toEqual({ kind: 'absent' });
  });

  it('reads * alone as any', () => {
    expect(parseIfMatch(['*'])).toEqual({ kind: 'any' });
    expect(parseIfMatch([' * '])).toEqual({ kind: 'any' });
  });

  it('reads a list, across repeated headers, ignoring empty elements and dropping weak tags', () => {
    expect(parseIfMatch([`"a", W/"b" ,${TAG}`, ', "c",,'])).toEqual({
      kind: 'tags',
      tags: ['"a"', TAG, '"c"'],
    });
    expect(parseIfMatch(['W/"a"'])).toEqual({ kind: 'tags', tags: [] });
    expect(parseIfMatch(['""'])).toEqual({ kind: 'tags', tags: ['""'] });
  });

  it.each([
    ['an unquoted tag', 'abc'],
    ['* in a list', '*, "a"'],
    ['a quote inside', '"a"b"'],
    ['a space inside', '"a b"'],
    ['a lower-case weak prefix', 'w/"a"'],
    ['only commas', ' , ,'],
    ['an unterminated tag', '"abc'],
  ])('is malformed with %s', (_, value) => {
    expect(parseIfMatch([value])).toEqual({ kind: 'malformed' });
  });
});

describe('ifMatchAllows: strong comparison', () => {
  it('lets a change through only when a listed strong tag is the current one', () => {
    expect(ifMatchAllows(parseIfMatch([TAG]), TAG)).toBe(true);
    expect(ifMatchAllows(parseIfMatch([`"x", ${TAG}`]), TAG)).toBe(true);
    expect(ifMatchAllows(parseIfMatch(['"x"']), TAG)).toBe(false);
    expect(ifMatchAllows(parseIfMatch([`W/${TAG}`]), TAG)).toBe(false);
    expect(ifMatchAllows(parseIfMatch([TAG]), undefined)).toBe(false);
  });

  it('* matches any existing resource, nothing missing; absent allows; malformed never', () => {
    expect(ifMatchAllows({ kind: 'any' }, TAG)).toBe(true);
    expect(ifMatchAllows({ kind: 'any' }, undefined)).toBe(false);
    expect(ifMatchAllows({ kind: 'absent' }, TAG)).toBe(true);
    expect(ifMatchAllows({ kind: 'malformed' }, TAG)).toBe(false);
  });
});

describe('requiredIfMatch', () => {
  const event = (multi: Record<string, string[]>) => ({
    headers: Object.fromEntries(Object.entries(multi).map(([name, values]) => [name, values.at(-1) ?? ''])),
    multiValueHeaders: multi,
  });
  const thrown = (f: () => unknown) => {
    try {
      f();
    } catch (error) {
      return error as HttpProblem;
    }
    throw new Error('did not throw');
  };

  it('reads every occurrence of the header, any case', () => {
    expect(requiredIfMatch(event({ 'IF-MATCH': ['"a"', TAG] }), 'the agent')).toEqual({
      kind: 'tags',
      tags: ['"a"', TAG],
    });
    expect(requiredIfMatch({ headers: { 'if-match': '*' }, multiValueHeaders: {} }, 'x')).toEqual({
      kind: 'any',
    });
  });

  it('428 without it, 400 naming If-Match when malformed', () => {
    const missing = thrown(() => requiredIfMatch(event({}), 'the agent'));
    expect(missing).toBeInstanceOf(HttpProblem);
    expect(missing).toMatchObject({
      status: 428,
      title: 'Precondition Required',
      type: 'https://voice-agent-admin.dev/problems/precondition-required',
    });
    const bad = thrown(() => requiredIfMatch(event({ 'If-Match': ['abc'] }), 'the agent'));
    expect(bad).toMatchObject({ status: 400, errors: [{ path: 'If-Match' }] });
  });
});
