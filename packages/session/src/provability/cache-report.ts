/**
 * `cachePrefixReport` (docs/provability.md#the-cache-prefix-report): for each digested request, how much of the
 * previous request's prefix it kept (system → tools → messages, the order providers serialize it) and why the rest
 * broke, beside the cached input tokens the provider reported. The rows are compared in `cache-row.ts` and come from
 * one pass over the log (`replayRequests`).
 */
import type { AnySessionEvent } from '../events/events.js'
import type { CachePrefixRow } from './cache-types.js'
import { replayRequests } from './replay.js'

export type {
  CachePrefixRow,
  CompactionBreak,
  MessageBreakCause,
  CachePredictionRow,
  CacheMissCause,
} from './cache-types.js'

/**
 * One row per digested request, in log order. Each row after the first compares the request with the previous
 * conversation request: whether system, tools and messages held, why they broke (first differing system line; tools
 * added, removed or moved; the compaction — with the messages it replaced and the tokens it saved — or context
 * snapshot that changed history), the prefix kept, and the provider's reported input and cached input tokens.
 * A summary request (`purpose: 'compaction'`) is compared with the conversation request before it, so its row shows
 * how much of that cached prefix it reused.
 */
export function cachePrefixReport(events: readonly AnySessionEvent[]): CachePrefixRow[] {
  const rows: CachePrefixRow[] = []
  for (const replayed of replayRequests(events)) rows.push(replayed.cache)
  return rows
}
