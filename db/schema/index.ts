export * from './agent-changes.ts';
export * from './agents.ts';
export * from './enums.ts';
export * from './events.ts';
export * from './idempotency.ts';
export * from './people.ts';
export * from './sessions.ts';
export * from './workspaces.ts';
