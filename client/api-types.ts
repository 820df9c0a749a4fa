// Generated from docs/openapi.json by openapi-typescript (npm run openapi). Do not edit.

export interface paths {
    "/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List agents, newest first
         * @description The workspace's agents, each with its latest version. Pages by `limit` and `offset`, or by cursor (`cursor=` starts; follow `Link: rel="next"`). Unknown parameters, bad values and repeated single-valued parameters are 400 problems naming each.
         *
         *     Requires the `agents:read` scope.
         */
        get: operations["listAgents"];
        put?: never;
        /**
         * Create an agent with its first version
         * @description Creates a `DRAFT` agent and its version 1 in one statement. Only `name` is required; the slug is derived from the name when omitted. Unknown fields at any depth are refused, each named. With an `Idempotency-Key`, a retry with the same body replays the first answer.
         *
         *     Requires the `agents:write` scope.
         */
        post: operations["createAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/agents/{agentId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read one agent
         * @description One agent of the workspace, with its latest version, in one statement. The `ETag` header is what a change to the agent sends back in `If-Match`.
         *
         *     Requires the `agents:read` scope.
         */
        get: operations["getAgent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change an agent's name, description or slug
         * @description A JSON merge patch (RFC 7396) of the agent's `name`, `description` and `slug`: a member left out is kept, `description: null` clears it. A slug taken in the workspace is a 409.
         *
         *     Requires the `agents:write` scope.
         */
        patch: operations["updateAgent"];
        trace?: never;
    };
    "/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List sessions, newest first
         * @description The workspace's sessions, each with the agent version it ran on. Pages by `limit` and `offset`, or by cursor (`cursor=` starts; follow `Link: rel="next"`). Unknown parameters, bad values and repeated single-valued parameters are 400 problems naming each.
         *
         *     Requires the `sessions:read` scope.
         */
        get: operations["listSessions"];
        put?: never;
        /**
         * Record a new session (PENDING) for an agent
         * @description For the voice runtime: records a `PENDING` session for an agent, on its published version unless `agentVersionId` names one. The person is found by email, else phone, within the workspace (or made); the conversation is their latest unarchived one with this agent (or a new one). One transaction.
         *
         *     Requires the `sessions:write` scope.
         */
        post: operations["createSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/agents/{agentId}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List an agent's versions, newest first
         * @description The agent's versions, newest (highest `version`) first; `order` and cursors follow the version numbers. An unknown agent, or another workspace's, is a 404. Pages by `limit` and `offset`, or by cursor (`cursor=` starts; follow `Link: rel="next"`). Unknown parameters, bad values and repeated single-valued parameters are 400 problems naming each.
         *
         *     Requires the `agents:read` scope.
         */
        get: operations["listVersions"];
        put?: never;
        /**
         * Add a draft version to an agent
         * @description Adds a `DRAFT` version, numbered after the highest, built from the latest version (or `sourceAgentVersionId`): a member left out is copied from it, `null` clears a nullable one, `config` is replaced whole (completed as the create completes it). The agent, its new version and its history entry are written in one statement. Refused for `ARCHIVED` and `COMPLETED` agents.
         *
         *     Requires the `agents:write` scope.
         */
        post: operations["createVersion"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/agents/{agentId}/versions/{versionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read one version of an agent
         * @description One version of the agent, as an agent embeds its latest, in one statement.
         *
         *     Requires the `agents:read` scope.
         */
        get: operations["getVersion"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/agents/{agentId}/versions/{versionId}/diff/{toVersionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Diff two versions' configurations as a JSON Patch
         * @description An RFC 6902 JSON Patch that turns the configuration of version `versionId` into that of `toVersionId` (both of this agent; the same version gives `[]`). The configuration is the object of these fields of a version: `themeId`, `incentiveType`, `incentiveAmount`, `incentiveCurrencyCode`, `maxParticipants`, `length`, `languages`, `inputMode`, `knowledgeBaseId`, `followUp`, `limitToKnowledgeBase`, `timezone`, `authentication`, `systemPrompt`, `agentFlowId`, `config`; never its id, agent, workspace, number, `sourceAgentVersionId` or audit fields. A field or member that is `null` is present (`replace` it); one that is absent is `add`ed. Only `add`, `remove` and `replace` are used; paths are JSON Pointers (RFC 6901: `~0` is `~`, `~1` is `/`), array items by index.
         *
         *     Requires the `agents:read` scope.
         */
        get: operations["diffVersions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{sessionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read one session
         * @description One session of the workspace with the same embeds as an item of `GET /sessions` (its agent with the version it ran on, conversation, person, ledger entry), in one statement.
         *
         *     Requires the `sessions:read` scope.
         */
        get: operations["getSession"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/agents/{agentId}/publish": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Publish one of the agent's versions (or roll back to an older one)
         * @description Makes the agent `PUBLISHED` with the version given (`publishedVersionId`, `publishedAt`, `publishedBy`); an older version is a rollback. Versions never change once written.
         *
         *     Requires the `agents:publish` scope.
         */
        post: operations["publishAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/agents/{agentId}/archive": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Archive an agent
         * @description Makes the agent `ARCHIVED` (`archivedAt`, `archivedBy`): no new version, PATCH or publish until it is unarchived. Archiving an archived agent changes nothing and answers it again.
         *
         *     Requires the `agents:publish` scope.
         */
        post: operations["archiveAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/agents/{agentId}/unarchive": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Unarchive an agent
         * @description Returns an archived agent to `COMPLETED` (when completed), `PUBLISHED` (when a version is published) or `DRAFT`, clearing `archivedAt`/`archivedBy`. An agent that is not archived is answered unchanged.
         *
         *     Requires the `agents:publish` scope.
         */
        post: operations["unarchiveAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/agents/{agentId}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An agent's history of changes, newest first
         * @description Every change to the agent (who, what, when, the ETag before and after), newest first. Pages by `limit` and `offset`, or by cursor (`cursor=` starts; follow `Link: rel="next"`). Unknown parameters, bad values and repeated single-valued parameters are 400 problems naming each.
         *
         *     Requires the `agents:read` scope.
         */
        get: operations["agentHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{sessionId}/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mark a session started (IN_PROGRESS)
         * @description `PENDING` → `IN_PROGRESS`: sets `startedAt` and the first `lastHeartbeatAt`.
         *
         *     Requires the `sessions:write` scope.
         */
        post: operations["startSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{sessionId}/heartbeat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Record that a session in progress is alive
         * @description An `IN_PROGRESS` session is alive: sets `lastHeartbeatAt`. A session without one for 300 s is completed by the stale-session sweep.
         *
         *     Requires the `sessions:write` scope.
         */
        post: operations["heartbeatSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{sessionId}/complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Complete a session and book its usage once
         * @description `PENDING` or `IN_PROGRESS` → `COMPLETED`; with `usage`, books the one `VOICE_USAGE` ledger entry of the session however often this is retried or raced (also after the sweep completed the session).
         *
         *     Requires the `sessions:write` scope.
         */
        post: operations["completeSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The event feed, in order, from a cursor
         * @description The workspace’s events (agent created/published/archived/unarchived, session created/started/completed, usage booked; `type` says what `data` holds), each written in the same transaction as its change, in a stable order: a consumer replays from any cursor and sees every event exactly once. Kept at least 30 days; then purged once the relay has published them. A cursor whose events were purged goes on with the oldest event still kept after it.
         *
         *     Requires the `events:read` scope.
         */
        get: operations["listEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ledger": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The workspace's ledger entries, newest first (JSON, or CSV)
         * @description The workspace's ledger entries: credits (positive `amount`) and usage (negative). With `Accept: text/csv` the same page is RFC 4180 CSV, with the same `Link` and `X-Total-Count`. Pages by `limit` and `offset`, or by cursor (`cursor=` starts; follow `Link: rel="next"`). Unknown parameters, bad values and repeated single-valued parameters are 400 problems naming each.
         *
         *     Requires the `usage:read` scope.
         */
        get: operations["listLedger"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ledger/{entryId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read one ledger entry
         * @description One ledger entry of the workspace (another workspace's is a 404, as an unknown one).
         *
         *     Requires the `usage:read` scope.
         */
        get: operations["getLedgerEntry"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ledger/credits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Add credit to the workspace (a refill entry), once per Idempotency-Key
         * @description Books a credit: `amount` (1 or more), `reason` (INITIAL_BALANCE, PURCHASE_REFILL, SUBSCRIPTION_REFILL, REDEMPTION_CODE; the last names `redemptionCodeId`), `reasonDetails`. Once per Idempotency-Key.
         *
         *     Requires the `billing:write` scope.
         */
        post: operations["createCredit"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/balance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The workspace's balance and the last entry it includes
         * @description The workspace's balance (the sum of all its entries, kept with each booking), the last entry it includes, and the threshold under which `balance.low` is sent. One primary-key read.
         *
         *     Requires the `usage:read` scope.
         */
        get: operations["getBalance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Usage totals over a window of days, by day, agent or reason
         * @description Usage totals (amount, entries, sessions, seconds of voice) per day, agent or reason over the whole days `from` to `to` in `timezone`: every entry of the window counted once, so the groups add up to the entries to the unit. Served by a quarter-hour rollup kept with each booking.
         *
         *     Requires the `usage:read` scope.
         */
        get: operations["getUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook-endpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The workspace's webhook endpoints, newest first
         * @description The workspace's webhook endpoints. Pages by `limit` and `offset`, or by cursor (`cursor=` starts; follow `Link: rel="next"`). Unknown parameters, bad values and repeated single-valued parameters are 400 problems naming each.
         *
         *     Requires the `webhooks:manage` scope.
         */
        get: operations["listWebhookEndpoints"];
        put?: never;
        /**
         * Register a webhook endpoint; answers its signing secret once
         * @description Registers an https endpoint for some event types (`*`: all) and, optionally, some agents. The answer holds its signing secret (`whsec_…`), shown this once. Every event of those types is delivered at least once, signed (`webhook-id`, `webhook-timestamp`, `webhook-signature`), retried about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after failures. Order per endpoint is not promised.
         *
         *     Requires the `webhooks:manage` scope.
         */
        post: operations["createWebhookEndpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook-endpoints/{endpointId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read one webhook endpoint
         * @description One endpoint with its health: `status`, `disabledReason`, `consecutiveFailures`, `lastSuccessAt`. Its secret is never shown again.
         *
         *     Requires the `webhooks:manage` scope.
         */
        get: operations["getWebhookEndpoint"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook endpoint and its delivery log
         * @description Deletes the endpoint, its deliveries and their attempts.
         *
         *     Requires the `webhooks:manage` scope.
         */
        delete: operations["deleteWebhookEndpoint"];
        options?: never;
        head?: never;
        /**
         * Change a webhook endpoint's URL, events, agents, metadata or status
         * @description Changes the URL, description, event types, agents or metadata, or `status` (`enabled`, which also re-enables an auto-disabled endpoint, or `disabled`).
         *
         *     Requires the `webhooks:manage` scope.
         */
        patch: operations["updateWebhookEndpoint"];
        trace?: never;
    };
    "/webhook-endpoints/{endpointId}/secret/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate an endpoint's signing secret, the old one signing too for a grace period
         * @description A new signing secret; during `gracePeriodSeconds` (at most 24 h, the default) every delivery carries both signatures, space-separated.
         *
         *     Requires the `webhooks:manage` scope.
         */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook-endpoints/{endpointId}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a signed test delivery
         * @description Queues a signed delivery of `eventType` whose `data` is an example valid against the schema of that type in the event feed, recorded like any other.
         *
         *     Requires the `webhooks:manage` scope.
         */
        post: operations["testWebhookEndpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook-endpoints/{endpointId}/recover": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Re-send a window's events that have no successful delivery yet, in feed order
         * @description Queues, in feed order, every event of the window (`since` to `until`, or now) the endpoint takes that has no 2xx delivery to it yet: a failed or dead delivery is due again, a missing one is made. Never a second delivery of one event.
         *
         *     Requires the `webhooks:manage` scope.
         */
        post: operations["recoverWebhookEvents"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook-endpoints/{endpointId}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An endpoint's deliveries, newest first
         * @description The endpoint's deliveries, by status, event type and age. Pages by `limit` and `offset`, or by cursor (`cursor=` starts; follow `Link: rel="next"`). Unknown parameters, bad values and repeated single-valued parameters are 400 problems naming each.
         *
         *     Requires the `webhooks:manage` scope.
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook-deliveries/{deliveryId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read one delivery and its attempts
         * @description One delivery with every attempt: when, the status code, the duration, the first 1 KiB of the answer and the error.
         *
         *     Requires the `webhooks:manage` scope.
         */
        get: operations["getWebhookDelivery"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhook-deliveries/{deliveryId}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a delivery again, with the same webhook-id
         * @description Sends the delivery again as a new delivery with the same `webhook-id` and body.
         *
         *     Requires the `webhooks:manage` scope.
         */
        post: operations["redeliverWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Agent: {
            id: string;
            createdAt: string;
            updatedAt: string;
            createdBy: string | null;
            updatedBy: string | null;
            workspaceId: string;
            publishedVersionId: string | null;
            name: string;
            description: string | null;
            slug: string;
            /** @enum {string} */
            status: "DRAFT" | "ARCHIVED" | "PUBLISHED" | "COMPLETED";
            sourceTemplateId: string | null;
            archivedAt: string | null;
            archivedBy: string | null;
            completedAt: string | null;
            completedBy: string | null;
            publishedAt: string | null;
            publishedBy: string | null;
            version: components["schemas"]["AgentVersion"];
        };
        AgentList: components["schemas"]["Agent"][];
        AgentVersion: {
            id: string;
            createdAt: string;
            updatedAt: string;
            createdBy: string | null;
            updatedBy: string | null;
            agentId: string;
            version: number;
            workspaceId: string;
            sourceAgentVersionId: string | null;
            themeId: string;
            /** @enum {string} */
            incentiveType: "CASH" | "NONE";
            incentiveAmount: number | null;
            incentiveCurrencyCode: "USD" | null;
            maxParticipants: number | null;
            /** @enum {string} */
            length: "FIVE_MINUTES" | "TEN_MINUTES" | "FIFTEEN_MINUTES" | "THIRTY_MINUTES" | "FORTY_FIVE_MINUTES";
            languages: ("en" | "es" | "fr")[];
            inputMode: ("SMS" | "PHONE" | "WEB_CHAT" | "WEB_VOICE")[];
            knowledgeBaseId: string | null;
            followUp: boolean;
            limitToKnowledgeBase: boolean | null;
            timezone: string | null;
            /** @enum {string} */
            authentication: "NONE" | "CODE";
            systemPrompt: string | null;
            agentFlowId: string | null;
            config: components["schemas"]["VersionConfig"] | null;
        };
        VersionConfig: {
            llm?: {
                /** @constant */
                provider: "LLM_PROVIDER_1";
                /** @enum {string} */
                model: "LLM_MODEL_1A" | "LLM_MODEL_1B" | "LLM_MODEL_1C" | "LLM_MODEL_1D";
                temperature?: number;
            } | {
                /** @constant */
                provider: "LLM_PROVIDER_2";
                /** @enum {string} */
                model: "LLM_MODEL_2A" | "LLM_MODEL_2B";
                temperature?: number;
            };
            tts?: {
                /** @constant */
                provider: "TTS_PROVIDER_1";
                /** @enum {string} */
                model: "TTS_MODEL_1A";
                voiceId: string;
            } | {
                /** @constant */
                provider: "TTS_PROVIDER_2";
                /** @enum {string} */
                model: "TTS_MODEL_2A";
                voiceId: string;
            };
            stt?: {
                /** @constant */
                provider: "STT_PROVIDER_1";
                /** @enum {string} */
                model: "STT_MODEL_1A";
            } | {
                /** @constant */
                provider: "STT_PROVIDER_2";
                /** @enum {string} */
                model: "STT_MODEL_2A";
            };
        };
        VersionConfigInput: {
            llm?: {
                /** @constant */
                provider: "LLM_PROVIDER_1";
                /** @enum {string} */
                model?: "LLM_MODEL_1A" | "LLM_MODEL_1B" | "LLM_MODEL_1C" | "LLM_MODEL_1D";
                temperature?: number;
            } | {
                /** @constant */
                provider: "LLM_PROVIDER_2";
                /** @enum {string} */
                model?: "LLM_MODEL_2A" | "LLM_MODEL_2B";
                temperature?: number;
            };
            tts?: {
                /** @constant */
                provider: "TTS_PROVIDER_1";
                /** @enum {string} */
                model: "TTS_MODEL_1A";
                voiceId: string;
            } | {
                /** @constant */
                provider: "TTS_PROVIDER_2";
                /** @enum {string} */
                model: "TTS_MODEL_2A";
                voiceId: string;
            };
            stt?: {
                /** @constant */
                provider: "STT_PROVIDER_1";
                /** @enum {string} */
                model: "STT_MODEL_1A";
            } | {
                /** @constant */
                provider: "STT_PROVIDER_2";
                /** @enum {string} */
                model: "STT_MODEL_2A";
            };
        };
        Session: {
            id: string;
            createdAt: string;
            updatedAt: string;
            name: string;
            /** @enum {string} */
            type: "INBOUND_CALL" | "WEB_VOICE";
            /** @enum {string} */
            status: "PENDING" | "IN_PROGRESS" | "COMPLETED";
            completedAt: string | null;
            lastHeartbeatAt: string | null;
            startedAt: string | null;
            endedAt: string | null;
            recordAudio: boolean;
            isDemo: boolean;
            agentId: string;
            agentVersionId: string;
            workspaceId: string;
            personId: string;
            conversationId: string;
            completedMeta: {
                traceId?: string;
                /** @enum {string} */
                reason?: "STALE_HEARTBEAT" | "NEVER_STARTED";
            } | null;
            agent: components["schemas"]["Agent"];
            conversation: components["schemas"]["Conversation"];
            person: components["schemas"]["Person"];
            ledger: components["schemas"]["LedgerEntry"] | null;
        };
        SessionList: components["schemas"]["Session"][];
        Conversation: {
            id: string;
            createdAt: string;
            updatedAt: string;
            workspaceId: string;
            personId: string;
            name: string;
            isDemo: boolean;
            lastViewedAt: string | null;
            lastViewedBy: string | null;
            lastSessionEndedAt: string | null;
            archivedAt: string | null;
            archivedBy: string | null;
        };
        Person: {
            id: string;
            createdAt: string;
            updatedAt: string;
            workspaceId: string;
            properties: {
                [key: string]: unknown;
            };
            firstSeenAt: string;
            lastSeenAt: string;
            identifiedAt: string | null;
            deletedAt: string | null;
            email: string | null;
            phone: string | null;
            rootPersonId: string;
            mergedBy: string | null;
            mergedAt: string | null;
            mergeMeta: {
                [key: string]: unknown;
            };
        };
        LedgerEntry: {
            id: string;
            createdAt: string;
            updatedAt: string;
            createdBy: string | null;
            updatedBy: string | null;
            workspaceId: string;
            amount: number;
            /** @enum {string} */
            reason: "INITIAL_BALANCE" | "PURCHASE_REFILL" | "SUBSCRIPTION_REFILL" | "REDEMPTION_CODE" | "VOICE_USAGE" | "SMS_USAGE";
            reasonDetails: string | null;
            redemptionCodeId: string | null;
            agentId: string | null;
            sessionId: string | null;
            idempotencyKey: string | null;
        };
        CreateAgentBody: {
            name: string;
            /** @default null */
            description?: string | null;
            slug?: string;
            /** @default {} */
            version?: {
                /** @default null */
                config?: components["schemas"]["VersionConfigInput"] | null;
                /** @default null */
                systemPrompt?: string | null;
                /** @default null */
                knowledgeBaseId?: string | null;
                /** @default [] */
                inputMode?: ("SMS" | "PHONE" | "WEB_CHAT" | "WEB_VOICE")[];
                /** @default false */
                followUp?: boolean;
            };
        };
        Problem: {
            type: string;
            title: string;
            status: number;
            detail: string;
            errors?: {
                path: string;
                message: string;
            }[];
            requestId: string;
        };
        EdgeProblem: {
            type: string;
            title: string;
            status: number;
            detail: string;
            blockedBy: string;
        };
        AgentVersionList: components["schemas"]["AgentVersion"][];
        JsonPatch: ({
            /** @constant */
            op: "add";
            path: string;
            value: unknown;
        } | {
            /** @constant */
            op: "remove";
            path: string;
        } | {
            /** @constant */
            op: "replace";
            path: string;
            value: unknown;
        })[];
        CreateVersionBody: {
            sourceAgentVersionId?: string;
            config?: components["schemas"]["VersionConfigInput"] | null;
            systemPrompt?: string | null;
            knowledgeBaseId?: string | null;
            inputMode?: ("SMS" | "PHONE" | "WEB_CHAT" | "WEB_VOICE")[];
            followUp?: boolean;
        };
        UpdateAgentBody: {
            name?: string;
            description?: string | null;
            slug?: string;
        };
        PublishAgentBody: {
            versionId: string;
        };
        AgentChange: {
            id: string;
            createdAt: string;
            workspaceId: string;
            agentId: string;
            agentVersionId: string | null;
            /** @enum {string} */
            operation: "create-agent" | "update-agent" | "create-version" | "publish-agent" | "archive-agent" | "unarchive-agent";
            principalId: string;
            keyId: string;
            etagBefore: string | null;
            etagAfter: string;
        };
        AgentChangeList: components["schemas"]["AgentChange"][];
        CreateSessionBody: {
            agentId: string;
            /** @default null */
            agentVersionId?: string | null;
            /** @enum {string} */
            type: "INBOUND_CALL" | "WEB_VOICE";
            /** @default null */
            name?: string | null;
            /** @default false */
            recordAudio?: boolean;
            person: {
                /** @default null */
                email?: string | null;
                /** @default null */
                phone?: string | null;
                /** @default {} */
                properties?: {
                    [key: string]: unknown;
                };
            };
        };
        CompleteSessionBody: {
            /** @default null */
            endedAt?: string | null;
            /** @default null */
            traceId?: string | null;
            /** @default null */
            usage?: {
                amount: number;
            } | null;
        };
        Event: {
            /** Format: uuid */
            id: string;
            /** @constant */
            type: "agent.created";
            occurredAt: string;
            workspaceId: string;
            data: components["schemas"]["AgentCreatedData"];
        } | {
            /** Format: uuid */
            id: string;
            /** @constant */
            type: "agent.published";
            occurredAt: string;
            workspaceId: string;
            data: components["schemas"]["AgentPublishedData"];
        } | {
            /** Format: uuid */
            id: string;
            /** @constant */
            type: "agent.archived";
            occurredAt: string;
            workspaceId: string;
            data: components["schemas"]["AgentArchivedData"];
        } | {
            /** Format: uuid */
            id: string;
            /** @constant */
            type: "agent.unarchived";
            occurredAt: string;
            workspaceId: string;
            data: components["schemas"]["AgentUnarchivedData"];
        } | {
            /** Format: uuid */
            id: string;
            /** @constant */
            type: "session.created";
            occurredAt: string;
            workspaceId: string;
            data: components["schemas"]["SessionEventData"];
        } | {
            /** Format: uuid */
            id: string;
            /** @constant */
            type: "session.started";
            occurredAt: string;
            workspaceId: string;
            data: components["schemas"]["SessionEventData"];
        } | {
            /** Format: uuid */
            id: string;
            /** @constant */
            type: "session.completed";
            occurredAt: string;
            workspaceId: string;
            data: components["schemas"]["SessionEventData"];
        } | {
            /** Format: uuid */
            id: string;
            /** @constant */
            type: "usage.booked";
            occurredAt: string;
            workspaceId: string;
            data: components["schemas"]["UsageBookedData"];
        } | {
            /** Format: uuid */
            id: string;
            /** @constant */
            type: "balance.low";
            occurredAt: string;
            workspaceId: string;
            data: components["schemas"]["BalanceLowData"];
        } | {
            /** Format: uuid */
            id: string;
            /** @constant */
            type: "webhook_endpoint.disabled";
            occurredAt: string;
            workspaceId: string;
            data: components["schemas"]["WebhookEndpointDisabledData"];
        };
        EventList: components["schemas"]["Event"][];
        AgentCreatedData: {
            agentId: string;
            name: string;
            slug: string;
            versionId: string;
        };
        AgentPublishedData: {
            agentId: string;
            name: string;
            slug: string;
            /** @constant */
            status: "PUBLISHED";
            versionId: string;
            previousVersionId: string | null;
            publishedAt: string;
        };
        AgentArchivedData: {
            agentId: string;
            name: string;
            slug: string;
            /** @constant */
            status: "ARCHIVED";
            archivedAt: string;
        };
        AgentUnarchivedData: {
            agentId: string;
            name: string;
            slug: string;
            /** @enum {string} */
            status: "DRAFT" | "PUBLISHED" | "COMPLETED";
        };
        SessionEventData: {
            sessionId: string;
            agentId: string;
            agentVersionId: string;
            personId: string;
            conversationId: string;
            /** @enum {string} */
            type: "INBOUND_CALL" | "WEB_VOICE";
            /** @enum {string} */
            status: "PENDING" | "IN_PROGRESS" | "COMPLETED";
            startedAt: string | null;
            endedAt: string | null;
            completedAt: string | null;
            completedMeta: {
                traceId?: string;
                /** @enum {string} */
                reason?: "STALE_HEARTBEAT" | "NEVER_STARTED";
            } | null;
        };
        UsageBookedData: {
            ledgerEntryId: string;
            sessionId: string;
            agentId: string;
            amount: number;
            /** @enum {string} */
            reason: "INITIAL_BALANCE" | "PURCHASE_REFILL" | "SUBSCRIPTION_REFILL" | "REDEMPTION_CODE" | "VOICE_USAGE" | "SMS_USAGE";
        };
        BalanceLowData: {
            balance: number;
            threshold: number;
            lastEntryId: string;
        };
        LedgerEntryList: components["schemas"]["LedgerEntry"][];
        Balance: {
            workspaceId: string;
            balance: number;
            lastEntryId: string | null;
            lastEntryAt: string | null;
            lowBalanceThreshold: number;
        };
        UsageGroup: {
            key: string | null;
            amount: number;
            entries: number;
            sessions: number;
            voiceSeconds: number;
        };
        UsageReport: {
            from: string;
            to: string;
            timezone: string;
            /** @enum {string} */
            groupBy: "day" | "agent" | "reason";
            groups: components["schemas"]["UsageGroup"][];
            total: {
                amount: number;
                entries: number;
                sessions: number;
                voiceSeconds: number;
            };
        };
        CreditBody: {
            amount: number;
            /** @enum {string} */
            reason: "INITIAL_BALANCE" | "PURCHASE_REFILL" | "SUBSCRIPTION_REFILL" | "REDEMPTION_CODE";
            /** @default null */
            reasonDetails?: string | null;
            /** @default null */
            redemptionCodeId?: string | null;
        };
        WebhookEndpointDisabledData: {
            endpointId: string;
            url: string;
            reason: string;
        };
        WebhookEndpoint: {
            id: string;
            url: string;
            description: string;
            enabledEvents: string[];
            agentIds: string[] | null;
            metadata: {
                [key: string]: unknown;
            };
            /** @enum {string} */
            status: "enabled" | "disabled" | "auto_disabled";
            disabledReason: string | null;
            consecutiveFailures: number;
            lastSuccessAt: string | null;
            firstFailureAt: string | null;
            previousSecretExpiresAt: string | null;
            createdAt: string;
            updatedAt: string;
        };
        WebhookEndpointWithSecret: {
            id: string;
            url: string;
            description: string;
            enabledEvents: string[];
            agentIds: string[] | null;
            metadata: {
                [key: string]: unknown;
            };
            /** @enum {string} */
            status: "enabled" | "disabled" | "auto_disabled";
            disabledReason: string | null;
            consecutiveFailures: number;
            lastSuccessAt: string | null;
            firstFailureAt: string | null;
            previousSecretExpiresAt: string | null;
            createdAt: string;
            updatedAt: string;
            secret: string;
        };
        WebhookEndpointList: components["schemas"]["WebhookEndpoint"][];
        WebhookAttempt: {
            at: string;
            statusCode: number | null;
            durationMs: number;
            response: string | null;
            error: string | null;
        };
        WebhookDelivery: {
            id: string;
            endpointId: string;
            /** Format: uuid */
            eventId: string;
            /** @enum {string} */
            eventType: "agent.created" | "agent.published" | "agent.archived" | "agent.unarchived" | "session.created" | "session.started" | "session.completed" | "usage.booked" | "balance.low" | "webhook_endpoint.disabled";
            /** @enum {string} */
            kind: "event" | "test" | "redelivery";
            /** @enum {string} */
            status: "pending" | "succeeded" | "failed" | "dead";
            attemptCount: number;
            nextAttemptAt: string | null;
            createdAt: string;
            updatedAt: string;
        };
        WebhookDeliveryDetail: {
            id: string;
            endpointId: string;
            /** Format: uuid */
            eventId: string;
            /** @enum {string} */
            eventType: "agent.created" | "agent.published" | "agent.archived" | "agent.unarchived" | "session.created" | "session.started" | "session.completed" | "usage.booked" | "balance.low" | "webhook_endpoint.disabled";
            /** @enum {string} */
            kind: "event" | "test" | "redelivery";
            /** @enum {string} */
            status: "pending" | "succeeded" | "failed" | "dead";
            attemptCount: number;
            nextAttemptAt: string | null;
            createdAt: string;
            updatedAt: string;
            attempts: components["schemas"]["WebhookAttempt"][];
        };
        WebhookDeliveryList: components["schemas"]["WebhookDelivery"][];
        WebhookRecovery: {
            queued: number;
        };
        CreateWebhookEndpointBody: {
            url: string;
            /** @default  */
            description?: string;
            enabledEvents: ("*" | "agent.created" | "agent.published" | "agent.archived" | "agent.unarchived" | "session.created" | "session.started" | "session.completed" | "usage.booked" | "balance.low" | "webhook_endpoint.disabled")[];
            /** @default null */
            agentIds?: string[] | null;
            /** @default {} */
            metadata?: {
                [key: string]: unknown;
            };
        };
        UpdateWebhookEndpointBody: {
            url?: string;
            description?: string;
            enabledEvents?: ("*" | "agent.created" | "agent.published" | "agent.archived" | "agent.unarchived" | "session.created" | "session.started" | "session.completed" | "usage.booked" | "balance.low" | "webhook_endpoint.disabled")[];
            agentIds?: string[] | null;
            metadata?: {
                [key: string]: unknown;
            };
            /** @enum {string} */
            status?: "enabled" | "disabled";
        };
        RotateWebhookSecretBody: {
            /** @default 86400 */
            gracePeriodSeconds?: number;
        };
        TestWebhookBody: {
            /**
             * @default agent.created
             * @enum {string}
             */
            eventType?: "agent.created" | "agent.published" | "agent.archived" | "agent.unarchived" | "session.created" | "session.started" | "session.completed" | "usage.booked" | "balance.low" | "webhook_endpoint.disabled";
        };
        RecoverWebhookBody: {
            since: string;
            until?: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listAgents: {
        parameters: {
            query?: {
                /** @description Items per page. */
                limit?: number;
                /** @description Items to skip before the page, at most 10000. Not with `cursor`. Deeper pages go by cursor: the `Link: rel="next"` of a page whose next offset would pass 10000 carries one. */
                offset?: number;
                /** @description Keyset paging: the value from a `Link: rel="next"` cursor, or empty to start. Stable while rows are added. */
                cursor?: string;
                /** @description By `createdAt` then `id`: newest first (`desc`) or oldest first. */
                order?: "desc" | "asc";
                /** @description `true` adds `X-Total-Count`: how many items match the filters (costs a count). */
                includeTotal?: boolean;
                /** @description Only agents in these states. Several values: repeat the parameter or separate them with commas. */
                status?: (("DRAFT" | "ARCHIVED" | "PUBLISHED" | "COMPLETED") | string)[];
                /** @description Only the agent with exactly this slug. */
                slug?: string;
                /** @description Only agents whose name contains this text, ignoring case. */
                q?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page, newest first unless `order=asc`. */
            200: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `<…>; rel="next"` (RFC 8288) while another page exists. */
                    link?: string;
                    /** @description With `includeTotal=true`: how many items match, as header text. */
                    "x-total-count"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentList"];
                };
            };
            /** @description A query parameter is invalid; `errors` names each one. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No such route (API Gateway’s own answer, as a problem). */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createAgent: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first answer for 24 h for the same body; 422 for another body; 409 while in flight. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateAgentBody"];
            };
        };
        responses: {
            /** @description The new agent with its version 1; `ETag` is what `GET /agents/{agentId}` answers. */
            201: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description The strong entity tag of the agent as answered, `"<agentId>.<updatedAt in epoch ms>"`: send it back in `If-Match` to change the agent. */
                    etag?: string;
                    /** @description The URL of the new agent: this request's URL and its id. */
                    location?: string;
                    /** @description `true` when this is a replayed answer; absent otherwise. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            /** @description Malformed JSON or an invalid field; `errors` names each one. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No such route (API Gateway’s own answer, as a problem). */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The slug is taken in this workspace, or the Idempotency-Key is in flight. */
            409: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body exceeds 262144 bytes. */
            413: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json. */
            415: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The Idempotency-Key was used with a different body. */
            422: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getAgent: {
        parameters: {
            query?: never;
            header?: {
                /** @description ETags the client holds (weak comparison), or `*`: 304 without a body when one is the current ETag. */
                "If-None-Match"?: string;
            };
            path: {
                /** @description The agent's id (cuid2, at most 24 characters). */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The agent, with its latest version: the same shape as an item of `GET /agents`. */
            200: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description The strong entity tag of the agent as answered, `"<agentId>.<updatedAt in epoch ms>"`: send it back in `If-Match` to change the agent. */
                    etag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            /** @description `If-None-Match` names the current ETag: the copy the client holds is current. No body. */
            304: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description The strong entity tag of the agent as answered, `"<agentId>.<updatedAt in epoch ms>"`: send it back in `If-Match` to change the agent. */
                    etag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A query parameter was given (this operation takes none); `errors` names each. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No agent with this id in this workspace: unknown, another workspace's, or not an id at all (no existence is revealed); or no such route. */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateAgent: {
        parameters: {
            query?: never;
            header: {
                /** @description The agent's current ETag (from `GET /agents/{agentId}` or the last change), or `*`: 428 without it, 412 when it is no longer current. */
                "If-Match": string;
            };
            path: {
                /** @description The agent's id (cuid2, at most 24 characters). */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/merge-patch+json": components["schemas"]["UpdateAgentBody"];
                "application/json": components["schemas"]["UpdateAgentBody"];
            };
        };
        responses: {
            /** @description The changed agent, with its latest version and its new ETag. */
            200: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description The strong entity tag of the agent as answered, `"<agentId>.<updatedAt in epoch ms>"`: send it back in `If-Match` to change the agent. */
                    etag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            /** @description Malformed JSON, an invalid field, a query parameter (none is taken) or a malformed `If-Match`; `errors` names each. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No agent with this id in this workspace: unknown, another workspace's, or not an id at all (no existence is revealed); or no such route. */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The agent is ARCHIVED or COMPLETED, or the slug is taken in this workspace. */
            409: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `If-Match` names none of the agent's current ETag: it changed since it was read. */
            412: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body exceeds 262144 bytes. */
            413: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/merge-patch+json or application/json. */
            415: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No `If-Match`: a change to the agent needs its current ETag. */
            428: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listSessions: {
        parameters: {
            query?: {
                /** @description Items per page. */
                limit?: number;
                /** @description Items to skip before the page, at most 10000. Not with `cursor`. Deeper pages go by cursor: the `Link: rel="next"` of a page whose next offset would pass 10000 carries one. */
                offset?: number;
                /** @description Keyset paging: the value from a `Link: rel="next"` cursor, or empty to start. Stable while rows are added. */
                cursor?: string;
                /** @description By `createdAt` then `id`: newest first (`desc`) or oldest first. */
                order?: "desc" | "asc";
                /** @description `true` adds `X-Total-Count`: how many items match the filters (costs a count). */
                includeTotal?: boolean;
                /** @description Only sessions of these agents. Several values: repeat the parameter or separate them with commas. */
                agentId?: (string)[];
                /** @description Only sessions of these agent versions. Several values: repeat the parameter or separate them with commas. */
                agentVersionId?: (string)[];
                /** @description Only sessions of these persons. Several values: repeat the parameter or separate them with commas. */
                personId?: (string)[];
                /** @description Only sessions of these conversations. Several values: repeat the parameter or separate them with commas. */
                conversationId?: (string)[];
                /** @description Only sessions in these states. Several values: repeat the parameter or separate them with commas. */
                status?: (("PENDING" | "IN_PROGRESS" | "COMPLETED") | string)[];
                /** @description Only sessions of these types. Several values: repeat the parameter or separate them with commas. */
                type?: (("INBOUND_CALL" | "WEB_VOICE") | string)[];
                /** @description Only sessions created strictly after this instant. ISO 8601 (a date means its midnight, UTC). */
                createdAfter?: string;
                /** @description Only sessions created strictly before this instant. ISO 8601 (a date means its midnight, UTC). */
                createdBefore?: string;
                /** @description `true`: only sessions with a ledger entry; `false`: only those without. */
                hasLedger?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page, newest first unless `order=asc`. */
            200: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `<…>; rel="next"` (RFC 8288) while another page exists. */
                    link?: string;
                    /** @description With `includeTotal=true`: how many items match, as header text. */
                    "x-total-count"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionList"];
                };
            };
            /** @description A query parameter is invalid; `errors` names each one. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No such route (API Gateway’s own answer, as a problem). */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createSession: {
        parameters: {
            query?: never;
            header: {
                /** @description Required: a retry must not record a second session. Replays the first answer for 24 h for the same body; 422 for another body; 409 while in flight. */
                "Idempotency-Key": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateSessionBody"];
            };
        };
        responses: {
            /** @description The new `PENDING` session, as `GET /sessions` lists it. */
            201: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description The URL of the new session: this request's URL and its id. */
                    location?: string;
                    /** @description `true` when this is a replayed answer; absent otherwise. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            /** @description Malformed JSON, an invalid field, no `Idempotency-Key`, or an `agentId`/`agentVersionId` that is not the workspace’s; `errors` names each. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The workspace has no credit left (problem `insufficient-credit`; `errors` names `balance`): add credit with `POST /ledger/credits`. */
            402: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No such route (API Gateway’s own answer, as a problem). */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The agent is archived, or has no published version and none was named; the email and the phone belong to two different persons (`errors` names both); or the Idempotency-Key is in flight. */
            409: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body exceeds 262144 bytes. */
            413: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json. */
            415: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The Idempotency-Key was used with a different body. */
            422: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listVersions: {
        parameters: {
            query?: {
                /** @description Items per page. */
                limit?: number;
                /** @description Items to skip before the page, at most 10000. Not with `cursor`. Deeper pages go by cursor: the `Link: rel="next"` of a page whose next offset would pass 10000 carries one. */
                offset?: number;
                /** @description Keyset paging: the value from a `Link: rel="next"` cursor, or empty to start. Stable while rows are added. */
                cursor?: string;
                /** @description By `version` number: newest first (`desc`) or oldest first. */
                order?: "desc" | "asc";
                /** @description `true` adds `X-Total-Count`: how many items match the filters (costs a count). */
                includeTotal?: boolean;
            };
            header?: never;
            path: {
                /** @description The agent's id (cuid2, at most 24 characters). */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page, newest first unless `order=asc`. */
            200: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `<…>; rel="next"` (RFC 8288) while another page exists. */
                    link?: string;
                    /** @description With `includeTotal=true`: how many items match, as header text. */
                    "x-total-count"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentVersionList"];
                };
            };
            /** @description A query parameter is invalid; `errors` names each one. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No agent with this id in this workspace: unknown, another workspace's, or not an id at all (no existence is revealed); or no such route. */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createVersion: {
        parameters: {
            query?: never;
            header: {
                /** @description The agent's current ETag (from `GET /agents/{agentId}` or the last change), or `*`: 428 without it, 412 when it is no longer current. */
                "If-Match": string;
                /** @description Replays the first answer for 24 h for the same body; 422 for another body; 409 while in flight. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The agent's id (cuid2, at most 24 characters). */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateVersionBody"];
            };
        };
        responses: {
            /** @description The new draft version; `ETag` is the agent's new one. */
            201: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description The strong entity tag of the agent as answered, `"<agentId>.<updatedAt in epoch ms>"`: send it back in `If-Match` to change the agent. */
                    etag?: string;
                    /** @description The URL of the new version: this request's URL and its id. */
                    location?: string;
                    /** @description `true` when this is a replayed answer; absent otherwise. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentVersion"];
                };
            };
            /** @description Malformed JSON, an invalid field, a query parameter (none is taken) or a malformed `If-Match`; `errors` names each. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No agent with this id in this workspace: unknown, another workspace's, or not an id at all (no existence is revealed); or no such route. */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The agent is ARCHIVED or COMPLETED; `sourceAgentVersionId` is not one of its versions; or the Idempotency-Key is in flight. */
            409: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `If-Match` names none of the agent's current ETag: it changed since it was read. */
            412: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body exceeds 262144 bytes. */
            413: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json. */
            415: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The Idempotency-Key was used with a different request. */
            422: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No `If-Match`: a change to the agent needs its current ETag. */
            428: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getVersion: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The agent's id (cuid2, at most 24 characters). */
                agentId: string;
                /** @description The agent version's id (cuid2, at most 24 characters). */
                versionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The version: the same shape as an Agent's `version`. */
            200: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentVersion"];
                };
            };
            /** @description A query parameter was given (this operation takes none); `errors` names each. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No agent with this id in this workspace, or no version with this id of this agent: unknown, another workspace's or another agent's, or not an id at all (no existence is revealed); or no such route. */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    diffVersions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The agent's id (cuid2, at most 24 characters). */
                agentId: string;
                /** @description The agent version's id (cuid2, at most 24 characters). */
                versionId: string;
                /** @description The id of the agent version the patch leads to (cuid2, at most 24 characters). */
                toVersionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The patch, as `application/json-patch+json`: applied in order to the first configuration, it gives the second. */
            200: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json-patch+json": components["schemas"]["JsonPatch"];
                };
            };
            /** @description A query parameter was given (this operation takes none); `errors` names each. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No agent with this id in this workspace, or no version with this id of this agent: unknown, another workspace's or another agent's, or not an id at all (no existence is revealed); or no such route. */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The session's id (cuid2, at most 24 characters). */
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session: the same shape as an item of `GET /sessions`. */
            200: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            /** @description A query parameter was given (this operation takes none); `errors` names each. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No session with this id in this workspace: unknown, another workspace's, or not an id at all (no existence is revealed); or no such route. */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    publishAgent: {
        parameters: {
            query?: never;
            header?: {
                /** @description Optional: when sent, the change is made only if it names the agent's current ETag (or is `*`); 412 otherwise. */
                "If-Match"?: string;
            };
            path: {
                /** @description The agent's id (cuid2, at most 24 characters). */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PublishAgentBody"];
            };
        };
        responses: {
            /** @description The agent, `PUBLISHED` with the version given, and its new ETag. */
            200: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description The strong entity tag of the agent as answered, `"<agentId>.<updatedAt in epoch ms>"`: send it back in `If-Match` to change the agent. */
                    etag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            /** @description Malformed JSON, an invalid field, a query parameter (none is taken) or a malformed `If-Match`; `errors` names each. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No agent with this id in this workspace: unknown, another workspace's, or not an id at all (no existence is revealed); or no such route. */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The agent is ARCHIVED or COMPLETED, or `versionId` is not one of its versions. */
            409: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `If-Match` names none of the agent's current ETag: it changed since it was read. */
            412: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body exceeds 262144 bytes. */
            413: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json. */
            415: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    archiveAgent: {
        parameters: {
            query?: never;
            header?: {
                /** @description Optional: when sent, the change is made only if it names the agent's current ETag (or is `*`); 412 otherwise. */
                "If-Match"?: string;
            };
            path: {
                /** @description The agent's id (cuid2, at most 24 characters). */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The agent archived, and its ETag (unchanged when it already was). */
            200: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description The strong entity tag of the agent as answered, `"<agentId>.<updatedAt in epoch ms>"`: send it back in `If-Match` to change the agent. */
                    etag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            /** @description A query parameter or a body field (none is taken), or a malformed `If-Match`; `errors` names each. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No agent with this id in this workspace: unknown, another workspace's, or not an id at all (no existence is revealed); or no such route. */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `If-Match` names none of the agent's current ETag: it changed since it was read. */
            412: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body exceeds 262144 bytes. */
            413: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json. */
            415: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    unarchiveAgent: {
        parameters: {
            query?: never;
            header?: {
                /** @description Optional: when sent, the change is made only if it names the agent's current ETag (or is `*`); 412 otherwise. */
                "If-Match"?: string;
            };
            path: {
                /** @description The agent's id (cuid2, at most 24 characters). */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The agent unarchived, and its ETag (unchanged when it already was). */
            200: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description The strong entity tag of the agent as answered, `"<agentId>.<updatedAt in epoch ms>"`: send it back in `If-Match` to change the agent. */
                    etag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            /** @description A query parameter or a body field (none is taken), or a malformed `If-Match`; `errors` names each. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No agent with this id in this workspace: unknown, another workspace's, or not an id at all (no existence is revealed); or no such route. */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `If-Match` names none of the agent's current ETag: it changed since it was read. */
            412: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body exceeds 262144 bytes. */
            413: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json. */
            415: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    agentHistory: {
        parameters: {
            query?: {
                /** @description Items per page. */
                limit?: number;
                /** @description Items to skip before the page, at most 10000. Not with `cursor`. Deeper pages go by cursor: the `Link: rel="next"` of a page whose next offset would pass 10000 carries one. */
                offset?: number;
                /** @description Keyset paging: the value from a `Link: rel="next"` cursor, or empty to start. Stable while rows are added. */
                cursor?: string;
                /** @description By `createdAt` then `id`: newest first (`desc`) or oldest first. */
                order?: "desc" | "asc";
                /** @description `true` adds `X-Total-Count`: how many items match the filters (costs a count). */
                includeTotal?: boolean;
            };
            header?: never;
            path: {
                /** @description The agent's id (cuid2, at most 24 characters). */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page, newest first unless `order=asc`. */
            200: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `<…>; rel="next"` (RFC 8288) while another page exists. */
                    link?: string;
                    /** @description With `includeTotal=true`: how many items match, as header text. */
                    "x-total-count"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentChangeList"];
                };
            };
            /** @description A query parameter is invalid; `errors` names each one. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No agent with this id in this workspace: unknown, another workspace's, or not an id at all (no existence is revealed); or no such route. */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    startSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The session's id (cuid2, at most 24 characters). */
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The session, `IN_PROGRESS` (a repeat answers it unchanged). */
            200: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            /** @description A query parameter, or a body field, was given that the operation does not take. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The workspace has no credit left (problem `insufficient-credit`; `errors` names `balance`): add credit with `POST /ledger/credits`. */
            402: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No session with this id in this workspace: unknown, another workspace's, or not an id at all (no existence is revealed); or no such route. */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session is `COMPLETED` (problem `illegal-transition`; `errors` names the session's `status`), or its agent was archived since it was created (problem `conflict`; `errors` names `agentId`). */
            409: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body exceeds 262144 bytes. */
            413: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json. */
            415: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    heartbeatSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The session's id (cuid2, at most 24 characters). */
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Recorded; no body. */
            204: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description The heartbeat as recorded (ISO 8601, UTC, milliseconds). */
                    "last-heartbeat-at"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A query parameter, or a body field, was given that the operation does not take. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No session with this id in this workspace: unknown, another workspace's, or not an id at all (no existence is revealed); or no such route. */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session is `PENDING` (start it first) or `COMPLETED` (problem `illegal-transition`; `errors` names the session's `status`). */
            409: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body exceeds 262144 bytes. */
            413: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json. */
            415: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    completeSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The session's id (cuid2, at most 24 characters). */
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["CompleteSessionBody"];
            };
        };
        responses: {
            /** @description The session, `COMPLETED`, with its ledger entry when usage was booked (a repeat answers it as the first did; the first usage stands). */
            200: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            /** @description A query parameter or a field the operation does not take, or an invalid one: an `endedAt` that is no real instant, is before the session started (or, never started, was created) or is more than 300 s ahead of the server; `errors` names each. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No session with this id in this workspace: unknown, another workspace's, or not an id at all (no existence is revealed); or no such route. */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body exceeds 262144 bytes. */
            413: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json. */
            415: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listEvents: {
        parameters: {
            query?: {
                /** @description Where to continue: `X-Next-Cursor` (or `Link: rel="next"`) of the previous answer; empty or absent starts at the oldest event kept. */
                cursor?: string;
                /** @description Only events of these types. Several values: repeat the parameter or separate them with commas. */
                type?: (("agent.created" | "agent.published" | "agent.archived" | "agent.unarchived" | "session.created" | "session.started" | "session.completed" | "usage.booked" | "balance.low" | "webhook_endpoint.disabled") | string)[];
                /** @description Events per page. */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Events after the cursor, oldest first (feed order); empty when none is new yet. A cursor into purged events is no error: the page starts at the next event kept. */
            200: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Where to continue (always sent): the cursor after this page, or the one given. */
                    "x-next-cursor"?: string;
                    /** @description `<…?cursor=…>; rel="next"` when more events follow now. */
                    link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventList"];
                };
            };
            /** @description An invalid parameter or a cursor this API did not issue; `errors` names each. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No such route (API Gateway’s own answer, as a problem). */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listLedger: {
        parameters: {
            query?: {
                /** @description Items per page. */
                limit?: number;
                /** @description Items to skip before the page, at most 10000. Not with `cursor`. Deeper pages go by cursor: the `Link: rel="next"` of a page whose next offset would pass 10000 carries one. */
                offset?: number;
                /** @description Keyset paging: the value from a `Link: rel="next"` cursor, or empty to start. Stable while rows are added. */
                cursor?: string;
                /** @description By `createdAt` then `id`: newest first (`desc`) or oldest first. */
                order?: "desc" | "asc";
                /** @description `true` adds `X-Total-Count`: how many items match the filters (costs a count). */
                includeTotal?: boolean;
                /** @description Only entries with these reasons. Several values: repeat the parameter or separate them with commas. */
                reason?: (("INITIAL_BALANCE" | "PURCHASE_REFILL" | "SUBSCRIPTION_REFILL" | "REDEMPTION_CODE" | "VOICE_USAGE" | "SMS_USAGE") | string)[];
                /** @description Only entries of these agents. Several values: repeat the parameter or separate them with commas. */
                agentId?: (string)[];
                /** @description Only entries of these sessions. Several values: repeat the parameter or separate them with commas. */
                sessionId?: (string)[];
                /** @description Only entries created strictly after this instant. ISO 8601 (a date means its midnight, UTC). */
                createdAfter?: string;
                /** @description Only entries created strictly before this instant. ISO 8601 (a date means its midnight, UTC). */
                createdBefore?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page, newest first unless `order=asc`. */
            200: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `<…>; rel="next"` (RFC 8288) while another page exists. */
                    link?: string;
                    /** @description With `includeTotal=true`: how many items match, as header text. */
                    "x-total-count"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LedgerEntryList"];
                    "text/csv": string;
                };
            };
            /** @description A query parameter is invalid; `errors` names each one. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No such route (API Gateway’s own answer, as a problem). */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getLedgerEntry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The ledger entry's id (cuid2, at most 24 characters). */
                entryId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The entry, as `GET /ledger` lists it. */
            200: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LedgerEntry"];
                };
            };
            /** @description A query parameter was given (this operation takes none); `errors` names each. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No ledger entry with this id in this workspace: unknown, another workspace's, or not an id at all (no existence is revealed); or no such route. */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createCredit: {
        parameters: {
            query?: never;
            header: {
                /** @description Required: a retry must not credit twice. Stored as the entry's `idempotencyKey`; replays the first answer for 24 h for the same body (422 for another, 409 while in flight), and never books a second entry under the same key. */
                "Idempotency-Key": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreditBody"];
            };
        };
        responses: {
            /** @description An entry with this Idempotency-Key was booked before (after the key's replay window): that entry. */
            200: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LedgerEntry"];
                };
            };
            /** @description The credit booked: a ledger entry with a positive `amount`. */
            201: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `true` when this is a replayed answer; absent otherwise. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LedgerEntry"];
                };
            };
            /** @description Malformed JSON, an invalid field or no `Idempotency-Key`; `errors` names each. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No such route (API Gateway’s own answer, as a problem). */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The Idempotency-Key is in flight. */
            409: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body exceeds 262144 bytes. */
            413: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json. */
            415: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The Idempotency-Key was used with a different body. */
            422: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getBalance: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The balance. */
            200: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Balance"];
                };
            };
            /** @description A query parameter was given (this operation takes none); `errors` names each. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No such route (API Gateway’s own answer, as a problem). */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getUsage: {
        parameters: {
            query?: {
                /** @description The first day of the report (YYYY-MM-DD, in `timezone`). Required. */
                from?: string;
                /** @description The last day of the report, included (YYYY-MM-DD, in `timezone`). Required. */
                to?: string;
                /** @description One group per day, per agent or per reason. */
                groupBy?: "day" | "agent" | "reason";
                /** @description The IANA time zone the days are counted in; default `UTC`. */
                timezone?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The groups with usage, in key order (days without entries are absent), and their total. */
            200: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UsageReport"];
                };
            };
            /** @description A parameter is missing or invalid (an unknown time zone, `to` before `from`, more than 366 days); `errors` names each. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No such route (API Gateway’s own answer, as a problem). */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listWebhookEndpoints: {
        parameters: {
            query?: {
                /** @description Items per page. */
                limit?: number;
                /** @description Items to skip before the page, at most 10000. Not with `cursor`. Deeper pages go by cursor: the `Link: rel="next"` of a page whose next offset would pass 10000 carries one. */
                offset?: number;
                /** @description Keyset paging: the value from a `Link: rel="next"` cursor, or empty to start. Stable while rows are added. */
                cursor?: string;
                /** @description By `createdAt` then `id`: newest first (`desc`) or oldest first. */
                order?: "desc" | "asc";
                /** @description `true` adds `X-Total-Count`: how many items match the filters (costs a count). */
                includeTotal?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page, newest first unless `order=asc`. */
            200: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `<…>; rel="next"` (RFC 8288) while another page exists. */
                    link?: string;
                    /** @description With `includeTotal=true`: how many items match, as header text. */
                    "x-total-count"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpointList"];
                };
            };
            /** @description A query parameter is invalid; `errors` names each one. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No such route (API Gateway’s own answer, as a problem). */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first answer for 24 h for the same body; 422 for another body; 409 while in flight. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateWebhookEndpointBody"];
            };
        };
        responses: {
            /** @description The new endpoint and its signing secret, shown this once: a replay under the Idempotency-Key answers the endpoint without it (rotate for a new one). */
            201: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description The endpoint's strong entity tag, `"<id>.<updatedAt in epoch ms>"`: send it back in `If-Match` to change or delete it. */
                    etag?: string;
                    /** @description The URL of the new webhook endpoint: this request's URL and its id. */
                    location?: string;
                    /** @description `true` when this is a replayed answer; absent otherwise. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpointWithSecret"] | components["schemas"]["WebhookEndpoint"];
                };
            };
            /** @description Malformed JSON, an invalid field, or a URL the stage does not send to (not https, or an address that is not public); `errors` names each. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No such route (API Gateway’s own answer, as a problem). */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The Idempotency-Key is in flight. */
            409: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body exceeds 262144 bytes. */
            413: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json. */
            415: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The Idempotency-Key was used with a different body. */
            422: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook endpoint's id (cuid2, at most 24 characters). */
                endpointId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint (never its secret). */
            200: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description The endpoint's strong entity tag, `"<id>.<updatedAt in epoch ms>"`: send it back in `If-Match` to change or delete it. */
                    etag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            /** @description A query parameter was given (this operation takes none); `errors` names each. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No webhook endpoint with this id in this workspace: unknown, another workspace's, or not an id at all (no existence is revealed); or no such route. */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteWebhookEndpoint: {
        parameters: {
            query?: never;
            header: {
                /** @description The agent's current ETag (from `GET /agents/{agentId}` or the last change), or `*`: 428 without it, 412 when it is no longer current. */
                "If-Match": string;
            };
            path: {
                /** @description The webhook endpoint's id (cuid2, at most 24 characters). */
                endpointId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted, with its deliveries and their attempts; no body. */
            204: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A query parameter, or a malformed `If-Match`; `errors` names each. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No webhook endpoint with this id in this workspace: unknown, another workspace's, or not an id at all (no existence is revealed); or no such route. */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `If-Match` names none of the endpoint's current ETag. */
            412: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No `If-Match`. */
            428: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateWebhookEndpoint: {
        parameters: {
            query?: never;
            header: {
                /** @description The agent's current ETag (from `GET /agents/{agentId}` or the last change), or `*`: 428 without it, 412 when it is no longer current. */
                "If-Match": string;
            };
            path: {
                /** @description The webhook endpoint's id (cuid2, at most 24 characters). */
                endpointId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateWebhookEndpointBody"];
            };
        };
        responses: {
            /** @description The endpoint as changed, and its new ETag. */
            200: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description The endpoint's strong entity tag, `"<id>.<updatedAt in epoch ms>"`: send it back in `If-Match` to change or delete it. */
                    etag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            /** @description Malformed JSON, an invalid field or URL, or a malformed `If-Match`; `errors` names each. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No webhook endpoint with this id in this workspace: unknown, another workspace's, or not an id at all (no existence is revealed); or no such route. */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `If-Match` names none of the endpoint's current ETag. */
            412: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body exceeds 262144 bytes. */
            413: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json. */
            415: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No `If-Match`. */
            428: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook endpoint's id (cuid2, at most 24 characters). */
                endpointId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["RotateWebhookSecretBody"];
            };
        };
        responses: {
            /** @description The endpoint and its new secret, shown this once. */
            200: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description The endpoint's strong entity tag, `"<id>.<updatedAt in epoch ms>"`: send it back in `If-Match` to change or delete it. */
                    etag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpointWithSecret"];
                };
            };
            /** @description Malformed JSON or an invalid field; `errors` names each. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No webhook endpoint with this id in this workspace: unknown, another workspace's, or not an id at all (no existence is revealed); or no such route. */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body exceeds 262144 bytes. */
            413: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json. */
            415: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    testWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook endpoint's id (cuid2, at most 24 characters). */
                endpointId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["TestWebhookBody"];
            };
        };
        responses: {
            /** @description The test delivery, queued: it is sent and recorded as any other. */
            202: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            /** @description Malformed JSON or an invalid field; `errors` names each. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No webhook endpoint with this id in this workspace: unknown, another workspace's, or not an id at all (no existence is revealed); or no such route. */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body exceeds 262144 bytes. */
            413: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json. */
            415: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    recoverWebhookEvents: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook endpoint's id (cuid2, at most 24 characters). */
                endpointId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RecoverWebhookBody"];
            };
        };
        responses: {
            /** @description How many deliveries were queued. */
            202: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookRecovery"];
                };
            };
            /** @description Malformed JSON or an invalid field (`until` not after `since`); `errors` names each. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No webhook endpoint with this id in this workspace: unknown, another workspace's, or not an id at all (no existence is revealed); or no such route. */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body exceeds 262144 bytes. */
            413: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json. */
            415: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                /** @description Items per page. */
                limit?: number;
                /** @description Items to skip before the page, at most 10000. Not with `cursor`. Deeper pages go by cursor: the `Link: rel="next"` of a page whose next offset would pass 10000 carries one. */
                offset?: number;
                /** @description Keyset paging: the value from a `Link: rel="next"` cursor, or empty to start. Stable while rows are added. */
                cursor?: string;
                /** @description By `createdAt` then `id`: newest first (`desc`) or oldest first. */
                order?: "desc" | "asc";
                /** @description `true` adds `X-Total-Count`: how many items match the filters (costs a count). */
                includeTotal?: boolean;
                /** @description Only deliveries in these states. Several values: repeat the parameter or separate them with commas. */
                status?: (("pending" | "succeeded" | "failed" | "dead") | string)[];
                /** @description Only deliveries of these event types. Several values: repeat the parameter or separate them with commas. */
                eventType?: (("agent.created" | "agent.published" | "agent.archived" | "agent.unarchived" | "session.created" | "session.started" | "session.completed" | "usage.booked" | "balance.low" | "webhook_endpoint.disabled") | string)[];
                /** @description Only deliveries created at or after this instant. ISO 8601 (a date means its midnight, UTC). */
                since?: string;
            };
            header?: never;
            path: {
                /** @description The webhook endpoint's id (cuid2, at most 24 characters). */
                endpointId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page, newest first unless `order=asc`. */
            200: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `<…>; rel="next"` (RFC 8288) while another page exists. */
                    link?: string;
                    /** @description With `includeTotal=true`: how many items match, as header text. */
                    "x-total-count"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryList"];
                };
            };
            /** @description A query parameter is invalid; `errors` names each one. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No webhook endpoint with this id in this workspace: unknown, another workspace's, or not an id at all (no existence is revealed); or no such route. */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getWebhookDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook delivery's id (cuid2, at most 24 characters). */
                deliveryId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The delivery and every attempt, oldest first. */
            200: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryDetail"];
                };
            };
            /** @description A query parameter was given (this operation takes none); `errors` names each. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No webhook delivery with this id in this workspace: unknown, another workspace's, or not an id at all (no existence is revealed); or no such route. */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    redeliverWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook delivery's id (cuid2, at most 24 characters). */
                deliveryId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The new delivery, queued: the same `webhook-id` (the event id) and body. */
            202: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            /** @description A query parameter, or a body field, was given that the operation does not take. From the web ACL: The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`). */
            400: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response). From the web ACL: An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`). */
            401: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description `Bearer` */
                    "www-authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope. From the web ACL: Blocked by a managed rule group (`blockedBy` names it). */
            403: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description No webhook delivery with this id in this workspace: unknown, another workspace's, or not an id at all (no existence is revealed); or no such route. */
            404: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body exceeds 262144 bytes. */
            413: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Content-Type is not application/json. */
            415: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`. From the web ACL: Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`). */
            429: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                    "application/json": components["schemas"]["EdgeProblem"];
                };
            };
            /** @description An unexpected error; nothing about it is disclosed. */
            500: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable; retry after the given delay. */
            503: {
                headers: {
                    /** @description The request id; also in every problem body. */
                    "x-request-id"?: string;
                    /** @description Seconds to wait before retrying: a whole number, as header text. */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
}
