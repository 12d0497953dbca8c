import { isIdentifiedUserMessage, type UserMessage } from '@bridle/llm'
import type { InboxSplice, InboxTarget } from './types.js'

/**
 * Normalizes a splice start the way `Array.prototype.splice` does: truncate, `NaN` → 0, negatives count
 * from the end (floored at 0), positives clamp to `len`.
 */
export function normalizeStart(start: number, len: number): number {
  const n = Number(start)
  if (Number.isNaN(n)) return 0
  if (n === Infinity) return len
  if (n === -Infinity) return 0
  const t = Math.trunc(n)
  if (t < 0) return Math.max(0, len + t)
  return Math.min(t, len)
}

/** Normalizes a delete count: truncate, `NaN` → 0, clamp into `[0, len - start]`. */
export function normalizeDeleteCount(deleteCount: number, start: number, len: number): number {
  const n = Number(deleteCount)
  if (Number.isNaN(n)) return 0
  const t = n === Infinity ? len - start : n === -Infinity ? 0 : Math.trunc(n)
  return Math.min(Math.max(0, t), len - start)
}

function isTarget(value: unknown): value is InboxTarget {
  return value === 'next-turn' || value === 'next-step'
}

function idOf(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null) return undefined
  const id = (message as { id?: unknown }).id
  return typeof id === 'string' && id.length > 0 ? id : undefined
}

/**
 * Checks that `m` is something the inbox can hold: an object with a non-empty string `id`, role `user`
 * and a content array. Throws `TypeError` naming what is wrong; the inbox never wraps or re-identifies.
 */
export function assertInboxMessage(m: unknown): asserts m is UserMessage {
  if (isIdentifiedUserMessage(m)) return
  // Not one: name the first part that is wrong.
  const id = idOf(m)
  if (id === undefined) throw new TypeError('inbox message must have a non-empty string id')
  const { role } = m as { role?: unknown }
  if (role !== 'user') throw new TypeError(`inbox message "${id}" must have role "user", got ${JSON.stringify(role)}`)
  throw new TypeError(`inbox message "${id}" must have a content array`)
}

/**
 * Validates a splice record against the current lists without changing them. Throws
 * `invalid inbox splice` for bad target or coordinates and `message "<id>" is already pending` when the
 * result would hold two messages with one id (across both lists).
 */
export function validateSplice(
  record: InboxSplice,
  lists: Readonly<Record<InboxTarget, readonly UserMessage[]>>,
): void {
  if (!isTarget(record.target)) throw new Error('invalid inbox splice')
  const list = lists[record.target]
  const other = lists[record.target === 'next-turn' ? 'next-step' : 'next-turn']
  const removed = record.removedCount ?? 0
  const { start } = record
  if (!Number.isSafeInteger(start) || start < 0 || start > list.length) throw new Error('invalid inbox splice')
  if (!Number.isSafeInteger(removed) || removed < 0 || start + removed > list.length) {
    throw new Error('invalid inbox splice')
  }
  if (!Array.isArray(record.inserted)) throw new Error('invalid inbox splice')
  // A pure removal (every claim) cannot create a duplicate: skip collecting the pending ids.
  if (record.inserted.length === 0) return
  const seen = new Set<string>()
  for (const m of other) seen.add(m.id)
  for (let i = 0; i < list.length; i++) {
    if (i < start || i >= start + removed) seen.add(list[i]!.id)
  }
  for (const m of record.inserted) {
    const id = idOf(m)
    if (id === undefined) throw new Error('invalid inbox splice')
    if (seen.has(id)) throw new Error(`message "${id}" is already pending`)
    seen.add(id)
  }
}
