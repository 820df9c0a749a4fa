import * as v from 'valibot';
import { oneOf, strictJsonObject } from './common.ts';

/**
 * Which models each provider offers (spec: Version configuration). The first listed model is the
 * default when a create request names only the llm provider.
 */
export const llmModels = {
  LLM_PROVIDER_1: ['LLM_MODEL_1A', 'LLM_MODEL_1B', 'LLM_MODEL_1C', 'LLM_MODEL_1D'],
  LLM_PROVIDER_2: ['LLM_MODEL_2A', 'LLM_MODEL_2B'],
} as const;
export const ttsModels = { TTS_PROVIDER_1: ['TTS_MODEL_1A'], TTS_PROVIDER_2: ['TTS_MODEL_2A'] } as const;
export const sttModels = { STT_PROVIDER_1: ['STT_MODEL_1A'], STT_PROVIDER_2: ['STT_MODEL_2A'] } as const;

const Temperature = v.pipe(
  v.number(),
  v.minValue(0, 'must be at least 0'),
  v.maxValue(2, 'must be at most 2'),
);
const VoiceId = v.pipe(v.string(), v.minLength(1, 'must not be empty'));

const provider = <P extends string>(value: P) => v.literal(value);
const model = <M extends readonly [string, ...string[]]>(models: M) => v.picklist(models, oneOf(models));

const llm = <P extends keyof typeof llmModels>(p: P) => ({
  provider: provider(p),
  model: model(llmModels[p]),
  temperature: v.optional(Temperature),
});
const tts = <P extends keyof typeof ttsModels>(p: P) =>
  v.strictObject({ provider: provider(p), model: model(ttsModels[p]), voiceId: VoiceId });
const stt = <P extends keyof typeof sttModels>(p: P) =>
  v.strictObject({ provider: provider(p), model: model(sttModels[p]) });

// Alternatives told apart by `provider`, so a model from another provider is named as the error.
const LlmStored = /* @__PURE__ */ (() =>
  v.variant(
    'provider',
    [v.strictObject(llm('LLM_PROVIDER_1')), v.strictObject(llm('LLM_PROVIDER_2'))],
    oneOf(Object.keys(llmModels)),
  ))();
const LlmInput = v.variant(
  'provider',
  [
    v.strictObject({ ...llm('LLM_PROVIDER_1'), model: v.optional(llm('LLM_PROVIDER_1').model) }),
    v.strictObject({ ...llm('LLM_PROVIDER_2'), model: v.optional(llm('LLM_PROVIDER_2').model) }),
  ],
  oneOf(Object.keys(llmModels)),
);
const Tts = v.variant(
  'provider',
  [tts('TTS_PROVIDER_1'), tts('TTS_PROVIDER_2')],
  oneOf(Object.keys(ttsModels)),
);
const Stt = v.variant(
  'provider',
  [stt('STT_PROVIDER_1'), stt('STT_PROVIDER_2')],
  oneOf(Object.keys(sttModels)),
);

/** What a create request may send. */
export const VersionConfigInput = strictJsonObject({
  llm: v.optional(LlmInput),
  tts: v.optional(Tts),
  stt: v.optional(Stt),
});

/** What is stored and returned: llm.model always filled in. */
export const VersionConfig = /* @__PURE__ */ (() =>
  v.strictObject({
    llm: v.optional(LlmStored),
    tts: v.optional(Tts),
    stt: v.optional(Stt),
  }))();

export type VersionConfigInput = v.InferOutput<typeof VersionConfigInput>;
export type VersionConfig = v.InferOutput<typeof VersionConfig>;

/** Fills in what the request may leave out: the llm provider's first model. */
export function completeConfig(input: VersionConfigInput): VersionConfig {
  const { llm, ...rest } = input;
  if (!llm) return rest;
  return { ...rest, llm: { ...llm, model: llm.model ?? llmModels[llm.provider][0] } } as VersionConfig;
}
