/**
 * Branded identifiers. At runtime they are plain strings; in TypeScript they are nominal so a
 * message id cannot be passed where a tool-call id is expected.
 */

declare const brand: unique symbol

/** A nominal string type: `Brand<'MessageId'>` is a string only the brand functions produce. */
export type Brand<B extends string> = string & { readonly [brand]: B }

/** Identifies one message; minted once with `crypto.randomUUID()` and preserved everywhere. */
export type MessageId = Brand<'MessageId'>
/** Correlates a tool call with its result; provider-issued or synthesized. */
export type CallId = Brand<'CallId'>
/** An opaque, adapter-owned reasoning-effort name (for example `high`). */
export type ReasoningEffortId = Brand<'ReasoningEffortId'>

/** Brands a string as a `MessageId`. Performs no validation. */
export function messageId(value: string): MessageId {
  return value as MessageId
}

/** Brands a string as a `CallId`. Performs no validation. */
export function callId(value: string): CallId {
  return value as CallId
}

/** Brands a string as a `ReasoningEffortId`. Performs no validation. */
export function reasoningEffortId(value: string): ReasoningEffortId {
  return value as ReasoningEffortId
}

/** The JSON vocabulary: what `replayState` and tool arguments may carry. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }
