import { configParser, nullAsAbsent, parseConfig } from '@bridle/llm'
import { z } from 'zod'

/** What the summary request asks for, as its last (user-role) message. */
export const DEFAULT_INSTRUCTIONS = [
  'Write a summary of the conversation above, so that the work can continue from the summary alone:',
  'it replaces those messages, and only the most recent messages stay as they are.',
  'Keep the user’s goals, instructions and constraints; decisions and their reasons; facts learned',
  '(file paths, names, values, commands, errors and their fixes); what was done and what it showed;',
  'and what remains to do. Be concise and specific, write in the language of the conversation,',
  'and answer with the summary as plain text only: do not call tools.',
].join(' ')

const route = z.strictObject({
  provider: z.string().min(1),
  model: z.string().min(1),
  reasoningEffort: nullAsAbsent(z.string().min(1).optional()),
  temperature: nullAsAbsent(z.number().min(0).optional()),
  maxTokens: nullAsAbsent(z.number().int().positive().optional()),
})

/**
 * Config of `@bridle/plugin-compaction` (zod 4 strict object; `null` counts as absent, unknown keys are rejected).
 * - `threshold`: compact before a step whose projected input exceeds this share of the context window (default 0.8).
 * - `lowWater`: a compaction brings the request down to about this share (system, tools, summary budget and the
 *   newest whole turns that fit); must be below `threshold` (default 0.4). The gap is what makes compactions rare.
 * - `contextWindow`: tokens; overrides the window the route advertises (required when it advertises none).
 * - `instructions`: the summary request's last message.
 * - `summary`: the route for summaries `{provider, model, reasoningEffort?, temperature?, maxTokens?}`; default: the
 *   agent's own route, which lets the summary request reuse the conversation's cached prefix.
 * - `summaryMaxTokens`: the summary's token budget, reserved under the low-water mark and sent as the summary
 *   request's `maxTokens` unless `summary.maxTokens` says otherwise (default 4096).
 * - `timeoutMs`: cancel a summary request that takes longer (the history stays as it was); default: no limit.
 * - `charsPerToken`: the estimator's ratio until the provider's reported usage calibrates it (default 4).
 */
export const ConfigSchema = z
  .strictObject({
    threshold: nullAsAbsent(z.number().gt(0).max(1).default(0.8)),
    lowWater: nullAsAbsent(z.number().gt(0).lt(1).default(0.4)),
    contextWindow: nullAsAbsent(z.number().int().positive().optional()),
    instructions: nullAsAbsent(z.string().trim().min(1).default(DEFAULT_INSTRUCTIONS)),
    summary: nullAsAbsent(route.optional()),
    summaryMaxTokens: nullAsAbsent(z.number().int().positive().default(4096)),
    timeoutMs: nullAsAbsent(z.number().int().positive().optional()),
    charsPerToken: nullAsAbsent(z.number().gt(0).max(100).default(4)),
  })
  .refine((c) => c.lowWater < c.threshold, { path: ['lowWater'], message: 'lowWater must be below threshold' })

export type CompactionConfig = z.output<typeof ConfigSchema>

/** Parses a raw config; throws `ConfigError` naming `plugin-compaction` and every failing field. Idempotent. */
export const Config = configParser(
  (raw: unknown): CompactionConfig => parseConfig('plugin-compaction', ConfigSchema, raw),
)
