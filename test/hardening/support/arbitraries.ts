import fc from 'fast-check';
import { inputMode } from '#contract/enums.ts';
import { llmModels, sttModels, ttsModels } from '#contract/schemas/config.ts';

/** Strings that have broken parsers, databases and loggers before. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '\t\n',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfff',
  '\ud83d',
  '😀',
  '👩‍👩‍👧',
  'e\u0301',
  '\u202eevil',
  '\ufeff',
  '\u00a0',
  'İı',
  'ß',
  '\u2028',
  "'; drop table agents; --",
  "' or '1'='1",
  '%00',
  '%',
  '\\',
  '"',
  '$'.concat('{7*7}'),
  '{{7*7}}',
  '<script>alert(1)</script>',
  'null',
  'true',
  '-1',
  '1e309',
  'NaN',
  '__proto__',
  'constructor',
  ' '.repeat(300),
  'x'.repeat(24),
  'x'.repeat(25),
  'x'.repeat(255),
  'x'.repeat(256),
  'x'.repeat(500),
  'x'.repeat(501),
  'é'.repeat(256),
  '😀'.repeat(128),
  'Bearer vak_',
] as const;

const loneSurrogate = fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff');

/** Any text: printable, full Unicode, lone surrogates, control characters, or a known troublemaker. */
export const anyText = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  {
    weight: 1,
    arbitrary: fc.string({ unit: fc.oneof(loneSurrogate, fc.string({ minLength: 1, maxLength: 1 })) }),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 40 }) },
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
);

/** Any JSON value, numbers at their edges included. */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: anyText },
  {
    weight: 1,
    arbitrary: fc.constantFrom(0, -0, 1, -1, 2.0000001, 1e308, -1e308, 5e-324, 2 ** 31, 2 ** 53 + 1, 0.1),
  },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}, [null], { '': null }) },
);

/** A name that survives trimming, within 255 UTF-16 units, without NUL or lone surrogates. */
const validName = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 60 })
  .filter((s) => s.trim().length > 0 && s.length <= 255 && !s.includes('\u0000'));
const validText = (maxLength: number) =>
  fc.string({ unit: 'grapheme', maxLength }).filter((s) => s.length <= maxLength && !s.includes('\u0000'));
const slugWord = fc.stringMatching(/^[a-z0-9]{1,12}$/);
export const validSlug = fc
  .array(slugWord, { minLength: 1, maxLength: 4 })
  .map((words) => words.join('-'))
  .filter((s) => s.length <= 255);

const temperature = fc.double({ min: 0, max: 2, noNaN: true, noDefaultInfinity: true });
const llm = fc.oneof(
  ...(Object.keys(llmModels) as (keyof typeof llmModels)[]).map((provider) =>
    fc.record(
      { provider: fc.constant(provider), model: fc.constantFrom(...llmModels[provider]), temperature },
      { requiredKeys: ['provider'] },
    ),
  ),
);
const tts = fc.oneof(
  ...(Object.keys(ttsModels) as (keyof typeof ttsModels)[]).map((provider) =>
    fc.record({
      provider: fc.constant(provider),
      model: fc.constantFrom(...ttsModels[provider]),
      voiceId: validText(40).filter((s) => s.length > 0),
    }),
  ),
);
const stt = fc.oneof(
  ...(Object.keys(sttModels) as (keyof typeof sttModels)[]).map((provider) =>
    fc.record({ provider: fc.constant(provider), model: fc.constantFrom(...sttModels[provider]) }),
  ),
);

/** A POST /agents body the API must accept: every field the spec lists, each optional one or not. */
export const validCreateBody = fc.record(
  {
    name: validName,
    description: fc.option(validText(80), { nil: null }),
    slug: validSlug,
    version: fc.record(
      {
        config: fc.option(fc.record({ llm, tts, stt }, { requiredKeys: [] }), { nil: null }),
        systemPrompt: fc.option(validText(200), { nil: null }),
        knowledgeBaseId: fc.option(fc.stringMatching(/^[A-Za-z0-9_-]{1,24}$/), { nil: null }),
        inputMode: fc.uniqueArray(fc.constantFrom(...inputMode)),
        followUp: fc.boolean(),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['name'] },
);

/** Every path a body can have, for mutations to aim at. */
export const BODY_PATHS = [
  [],
  ['name'],
  ['description'],
  ['slug'],
  ['version'],
  ['version', 'config'],
  ['version', 'config', 'llm'],
  ['version', 'config', 'llm', 'provider'],
  ['version', 'config', 'llm', 'model'],
  ['version', 'config', 'llm', 'temperature'],
  ['version', 'config', 'tts'],
  ['version', 'config', 'tts', 'provider'],
  ['version', 'config', 'tts', 'model'],
  ['version', 'config', 'tts', 'voiceId'],
  ['version', 'config', 'stt'],
  ['version', 'config', 'stt', 'provider'],
  ['version', 'config', 'stt', 'model'],
  ['version', 'systemPrompt'],
  ['version', 'knowledgeBaseId'],
  ['version', 'inputMode'],
  ['version', 'inputMode', '0'],
  ['version', 'followUp'],
] as const;

/** Values chosen to sit just past a rule: each is wrong for some field and right for others. */
const edgeValue = fc.oneof(
  anyJson,
  fc.constantFrom(
    'x'.repeat(256),
    'x'.repeat(501),
    'y'.repeat(25),
    'Bad-Slug',
    'a--b',
    '-a',
    'a-',
    'LLM_PROVIDER_1',
    'LLM_PROVIDER_2',
    'LLM_MODEL_2A',
    'LLM_MODEL_1A',
    'TTS_PROVIDER_1',
    'TTS_MODEL_2A',
    'STT_MODEL_1A',
    -0.000001,
    2.000001,
    ['SMS', 'SMS'],
    ['FAX'],
    'SMS',
    { provider: 'X' },
    { provider: 'LLM_PROVIDER_1', model: 'LLM_MODEL_2A' },
    { provider: 'TTS_PROVIDER_2', voiceId: 'v' },
  ),
);

/** A field name the schema does not know, prototype names and look-alikes included. */
export const unknownKey = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    'Name',
    'name ',
    'workspaceId',
    'id',
    'status',
    'createdBy',
    'themeId',
    'prompt',
    '',
    ' ',
    'naïve',
    '😀',
  ),
  fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !/^(name|description|slug|version)$/.test(k)),
);

export type Mutation =
  | { kind: 'set'; path: readonly string[]; value: unknown }
  | { kind: 'delete'; path: readonly string[] }
  | { kind: 'add'; path: readonly string[]; key: string; value: unknown }
  | { kind: 'inject'; path: readonly string[]; text: string };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('set' as const),
      path: fc.constantFrom(...BODY_PATHS),
      value: edgeValue,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('delete' as const), path: fc.constantFrom(...BODY_PATHS) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      path: fc.constantFrom(
        [],
        ['version'],
        ['version', 'config'],
        ['version', 'config', 'llm'],
        ['version', 'config', 'tts'],
      ),
      key: unknownKey,
      value: anyJson,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('inject' as const),
      path: fc.constantFrom(
        ['name'],
        ['description'],
        ['version', 'systemPrompt'],
        ['version', 'knowledgeBaseId'],
        ['version', 'config', 'tts', 'voiceId'],
      ),
      text: fc.constantFrom('\u0000', '\ud800', '\udfff', '\u202e', '😀', '\u2028', "'--"),
    }),
  },
);

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

/** Applies a mutation to a copy of the body; an unreachable path leaves the body as it was. */
export function applyMutation(body: unknown, m: Mutation): unknown {
  const copy = structuredClone(body) as unknown;
  if (m.path.length === 0 && m.kind === 'set') return m.value;
  const parentPath = m.kind === 'add' ? m.path : m.path.slice(0, -1);
  let parent: unknown = copy;
  for (const key of parentPath) {
    if (!isObject(parent) && !Array.isArray(parent)) return copy;
    parent = (parent as Record<string, unknown>)[key];
  }
  if (!isObject(parent) && !Array.isArray(parent)) return copy;
  const target = parent as Record<string, unknown>;
  const last = m.path.at(-1) as string;
  switch (m.kind) {
    case 'set':
      target[last] = m.value;
      break;
    case 'delete':
      delete target[last];
      break;
    case 'add':
      Object.defineProperty(target, m.key, {
        value: m.value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      break;
    case 'inject': {
      const current = target[last];
      if (typeof current !== 'string') return copy;
      target[last] = `${current.slice(0, 1)}${m.text}${current.slice(1)}`;
      break;
    }
  }
  return copy;
}

/** The dot path a mutation aimed at, as the API names fields. */
export const dotPath = (m: Mutation) =>
  (m.kind === 'add' ? [...m.path, m.key] : m.path).join('.') || '(root)';
