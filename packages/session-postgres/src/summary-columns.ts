import {
  type SessionEvent,
  type SessionSnapshotInfo,
  type SessionSummary,
  summarizeEvents,
  summaryFacts,
} from '@bridle/session'

/**
 * What one batch changes in a session row's listing summary, as statement parameters: the highest turn number in it
 * (or null), the time of its last event, the latest model in it (provider, model, or nulls) and its first user prompt
 * (or null). The writing statement folds them into the row: `greatest` turns, the new last activity, the model when
 * the batch names one, the prompt only while the row has none.
 */
export function batchSummaryParams(events: readonly SessionEvent[]): unknown[] {
  let turn: number | null = null
  let provider: string | null = null
  let model: string | null = null
  let prompt: string | null = null
  for (const event of events) {
    const facts = summaryFacts(event)
    if (facts.turn !== undefined && (turn === null || facts.turn > turn)) turn = facts.turn
    if (facts.model !== undefined) ({ provider, model } = facts.model)
    if (prompt === null && facts.prompt !== undefined) prompt = facts.prompt
  }
  return [turn, events.at(-1)?.time ?? null, provider, model, prompt]
}

/** `SET` assignments that fold a batch's summary parameters (numbered from `$first`) into a session row. */
export function foldSummarySql(first: number): string {
  const [turn, time, provider, model, prompt] = [0, 1, 2, 3, 4].map((i) => `$${first + i}`)
  return `turns = greatest(turns, coalesce(${turn}::integer, 0)), last_activity = coalesce(${time}::bigint, last_activity),
          model_provider = coalesce(${provider}::text, model_provider), model_name = coalesce(${model}::text, model_name),
          first_prompt = coalesce(first_prompt, ${prompt}::text)`
}

/** The columns a listing reads besides the header. */
export interface SummaryRow {
  event_count: number | string
  summarized: boolean
  turns: number
  last_activity: string | number | null
  model_provider: string | null
  model_name: string | null
  first_prompt: string | null
}

/**
 * The summary of a session row. A row that keeps no summary (written before the summary columns existed, or
 * repaired since) is summarized from its events, read with `events`.
 */
export async function summaryOf(
  snapshot: SessionSnapshotInfo,
  row: SummaryRow,
  events: () => Promise<readonly SessionEvent[]>,
): Promise<SessionSummary> {
  if (!row.summarized) return summarizeEvents(snapshot.meta, snapshot.revision, await events())
  return Object.freeze({
    meta: snapshot.meta,
    revision: snapshot.revision,
    events: Number(row.event_count),
    turns: row.turns,
    lastActivity: row.last_activity === null ? snapshot.meta.createdAt : Number(row.last_activity),
    ...(row.model_provider !== null && row.model_name !== null
      ? { model: { provider: row.model_provider, model: row.model_name } }
      : {}),
    ...(row.first_prompt !== null ? { firstPrompt: row.first_prompt } : {}),
  })
}
