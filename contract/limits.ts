/** The largest request body the API reads, in bytes; larger ones are refused before parsing (413). */
export const MAX_BODY_BYTES = 256 * 1024;

/**
 * The deepest `offset` a list accepts: past it a page costs the database a scan of every row it
 * skips, so deeper pages go by cursor, whose cost does not grow with depth (docs/performance.md).
 */
export const OFFSET_MAX = 10_000;

/** Identifiers are cuid2, and every reference to one a string of at most this many characters. */
export const ID_MAX = 24;

/** An agent's text fields, in characters; the database columns are exactly as wide. */
export const AGENT_NAME_MAX = 255;
export const AGENT_DESCRIPTION_MAX = 500;
export const AGENT_SLUG_MAX = 255;

/** A workspace's and an API key's name, in characters (the columns' width). */
export const NAME_MAX = 255;

/** The `Idempotency-Key` header: visible ASCII, at most this long; a key remembers its answer this many hours. */
export const IDEMPOTENCY_KEY_MAX = 255;
export const IDEMPOTENCY_KEY_HOURS = 24;

/**
 * A session not completed is stale after this many seconds without a heartbeat (or, never started,
 * since it was created): the scheduled sweep then completes it. A runtime heartbeats well within it.
 */
export const SESSION_STALE_AFTER_SECONDS = 300;

/**
 * A session's `endedAt` may be at most this many seconds ahead of the server's clock (a caller's
 * clock runs a little fast); later is refused, as is one before the session started.
 */
export const ENDED_AT_SKEW_SECONDS = 300;

/**
 * Events are kept at least this many days (GET /events replays that far back); after it, the
 * scheduled purge deletes those the relay has already published.
 */
export const EVENT_RETENTION_DAYS = 30;

/** A workspace's low-balance threshold until the operator sets one: `balance.low` when it reaches zero. */
export const LOW_BALANCE_THRESHOLD_DEFAULT = 0;
/** The credit a new workspace opens with (its INITIAL_BALANCE entry). */
export const TRIAL_CREDIT = 10_000;

/** Webhook endpoints: the URL's length, the description's, and how many per workspace. */
export const WEBHOOK_URL_MAX = 2048;
export const WEBHOOK_DESCRIPTION_MAX = 500;
/** The longest grace period of a secret rotation: both secrets sign until it ends. */
export const WEBHOOK_ROTATION_GRACE_MAX_SECONDS = 86_400;
/** A receiver has this long to answer 2xx (headers and body). */
export const WEBHOOK_TIMEOUT_MS = 15_000;
/** The bytes of a receiver's answer kept with each attempt. */
export const WEBHOOK_RESPONSE_KEPT_BYTES = 1024;
/** An endpoint failing every delivery this long is auto-disabled. */
export const WEBHOOK_FAILING_DISABLE_DAYS = 5;
