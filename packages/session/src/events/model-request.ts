/**
 * The model-facing request: what a step sends besides `signal` and `sessionId`, what a digest covers, and what
 * `reconstructRequest` rebuilds (docs/provability.md#request-digests).
 */
import type { CachePlan, LlmCallConfig, Message, ToolSchema } from '@bridle/llm'

/** The model-facing fields of a request that take part in its digest. */
export type DigestableRequest = LlmCallConfig & {
  readonly system?: string
  readonly tools?: readonly ToolSchema[]
  readonly messages: readonly Message[]
  /** Prompt-cache breakpoints the request carried (`request/cache`). */
  readonly cache?: CachePlan
}
