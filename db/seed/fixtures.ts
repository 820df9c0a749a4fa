import type { VersionConfig } from '#contract/schemas/config.ts';
import type { agents, agentVersions } from '../schema/index.ts';

type VersionFields = Omit<
  Partial<typeof agentVersions.$inferInsert>,
  'id' | 'agentId' | 'version' | 'workspaceId' | 'themeId' | 'config'
> & { config: VersionConfig | null };

/** An agent's life in days before the seed runs; sessions only fall inside its live window. */
export interface AgentFixture {
  name: string;
  slug: string;
  description: string | null;
  status: NonNullable<(typeof agents.$inferInsert)['status']>;
  /** Archived or completed this many days ago: no sessions after that. */
  endedDaysAgo?: number;
  /** Oldest first; the first one's day is the agent's creation. */
  versions: Array<{ daysAgo: number } & VersionFields>;
}

const frontDeskPrompt =
  'You are the front desk of Northwind Dental. Greet callers, answer questions about opening hours and ' +
  'insurance, and book, move or cancel appointments. Never give medical advice.';

export const agentFixtures: AgentFixture[] = [
  {
    name: 'Front Desk',
    slug: 'front-desk',
    description: 'Answers the main line: opening hours, insurance questions and bookings.',
    status: 'PUBLISHED',
    versions: [
      {
        daysAgo: 45,
        systemPrompt: frontDeskPrompt,
        inputMode: ['PHONE'],
        timezone: 'America/New_York',
        config: {
          llm: { provider: 'LLM_PROVIDER_1', model: 'LLM_MODEL_1A', temperature: 0.7 },
          tts: { provider: 'TTS_PROVIDER_1', model: 'TTS_MODEL_1A', voiceId: 'warm-alto' },
          stt: { provider: 'STT_PROVIDER_1', model: 'STT_MODEL_1A' },
        },
      },
      {
        daysAgo: 20,
        systemPrompt: `${frontDeskPrompt} Reply in the caller's language.`,
        languages: ['en', 'es'],
        inputMode: ['PHONE', 'WEB_VOICE'],
        length: 'FIFTEEN_MINUTES',
        timezone: 'America/New_York',
        config: {
          llm: { provider: 'LLM_PROVIDER_1', model: 'LLM_MODEL_1B', temperature: 0.4 },
          tts: { provider: 'TTS_PROVIDER_1', model: 'TTS_MODEL_1A', voiceId: 'warm-alto' },
          stt: { provider: 'STT_PROVIDER_1', model: 'STT_MODEL_1A' },
        },
      },
      {
        daysAgo: 6,
        systemPrompt: `${frontDeskPrompt} Reply in the caller's language. Offer a follow-up text.`,
        languages: ['en', 'es'],
        inputMode: ['PHONE', 'WEB_VOICE', 'SMS'],
        length: 'FIFTEEN_MINUTES',
        followUp: true,
        timezone: 'America/New_York',
        config: {
          llm: { provider: 'LLM_PROVIDER_2', model: 'LLM_MODEL_2A', temperature: 0.3 },
          tts: { provider: 'TTS_PROVIDER_2', model: 'TTS_MODEL_2A', voiceId: 'clear-tenor' },
          stt: { provider: 'STT_PROVIDER_2', model: 'STT_MODEL_2A' },
        },
      },
    ],
  },
  {
    name: 'Appointment Reminders',
    slug: 'appointment-reminders',
    description: 'Calls patients the day before to confirm or reschedule.',
    status: 'DRAFT',
    versions: [
      {
        daysAgo: 10,
        inputMode: ['PHONE', 'SMS'],
        length: 'FIVE_MINUTES',
        timezone: 'America/Chicago',
        systemPrompt: 'Confirm tomorrow’s appointment; offer two other slots if the patient cannot make it.',
        config: { llm: { provider: 'LLM_PROVIDER_2', model: 'LLM_MODEL_2B' } },
      },
      {
        daysAgo: 3,
        inputMode: ['PHONE', 'SMS'],
        length: 'FIVE_MINUTES',
        timezone: 'America/Chicago',
        authentication: 'CODE',
        systemPrompt: 'Ask for the code from the reminder text, then confirm or reschedule the appointment.',
        config: {
          llm: { provider: 'LLM_PROVIDER_2', model: 'LLM_MODEL_2B', temperature: 0.2 },
          tts: { provider: 'TTS_PROVIDER_2', model: 'TTS_MODEL_2A', voiceId: 'bright-soprano' },
        },
      },
    ],
  },
  {
    name: 'Patient Satisfaction Survey',
    slug: 'patient-satisfaction-survey',
    description: 'Five questions after a visit; respondents get a $5 voucher.',
    status: 'COMPLETED',
    endedDaysAgo: 8,
    versions: [
      {
        daysAgo: 40,
        inputMode: ['WEB_VOICE'],
        length: 'FIVE_MINUTES',
        languages: ['en', 'fr'],
        incentiveType: 'CASH',
        incentiveAmount: 500,
        incentiveCurrencyCode: 'USD',
        maxParticipants: 200,
        systemPrompt: 'Ask the five survey questions in order and thank the respondent.',
        config: {
          llm: { provider: 'LLM_PROVIDER_1', model: 'LLM_MODEL_1C', temperature: 1 },
          tts: { provider: 'TTS_PROVIDER_1', model: 'TTS_MODEL_1A', voiceId: 'friendly-mezzo' },
          stt: { provider: 'STT_PROVIDER_2', model: 'STT_MODEL_2A' },
        },
      },
    ],
  },
  {
    name: 'Legacy Phone Menu',
    slug: 'legacy-phone-menu',
    description: null,
    status: 'ARCHIVED',
    endedDaysAgo: 25,
    versions: [
      // Predates version configuration.
      { daysAgo: 60, inputMode: ['PHONE'], length: 'FIVE_MINUTES', config: null },
      {
        daysAgo: 35,
        inputMode: ['PHONE'],
        length: 'FIVE_MINUTES',
        config: { llm: { provider: 'LLM_PROVIDER_1', model: 'LLM_MODEL_1D', temperature: 0 } },
      },
    ],
  },
];

export const personNames: ReadonlyArray<readonly [first: string, last: string, locale: string]> = [
  ['Ada', 'Lovelace', 'en-GB'],
  ['Grace', 'Hopper', 'en-US'],
  ['Alan', 'Turing', 'en-GB'],
  ['Katherine', 'Johnson', 'en-US'],
  ['Lucía', 'Fernández', 'es-US'],
  ['Margaret', 'Hamilton', 'en-US'],
  ['Claude', 'Shannon', 'en-US'],
  ['Marie', 'Dubois', 'fr-FR'],
  ['Edsger', 'Dijkstra', 'en-US'],
  ['Barbara', 'Liskov', 'en-US'],
  ['Mateo', 'García', 'es-US'],
  ['Frances', 'Allen', 'en-US'],
  ['Tim', 'Berners-Lee', 'en-GB'],
  ['Radia', 'Perlman', 'en-US'],
  ['Camille', 'Martin', 'fr-FR'],
  ['Donald', 'Knuth', 'en-US'],
  ['Sophie', 'Wilson', 'en-GB'],
  ['Ken', 'Thompson', 'en-US'],
  ['Hedy', 'Lamarr', 'en-US'],
  ['John', 'McCarthy', 'en-US'],
];
