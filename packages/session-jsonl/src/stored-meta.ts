import type { SessionHeader } from '@bridle/session'
import type { StoredMeta } from './line-format.js'

/** The header fields a log stores, taken from an in-memory header (unknown keys are dropped). */
export function storedMetaOf(header: SessionHeader): StoredMeta {
  const meta: { -readonly [K in keyof StoredMeta]: StoredMeta[K] } = {
    version: 0,
    id: header.id,
    createdAt: header.createdAt,
  }
  if (header.cwd !== undefined) meta.cwd = header.cwd
  if (header.parentSession !== undefined) meta.parentSession = header.parentSession
  if (header.seedLength !== undefined) meta.seedLength = header.seedLength
  return meta
}
