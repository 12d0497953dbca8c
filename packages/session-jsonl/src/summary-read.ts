import { type SessionSnapshotInfo, type SessionSummary, type SummaryFacts, summaryFacts } from '@bridle/session'
import { type FileHandleLike, type FsLayer, isNotFound } from './fs-layer.js'
import { revisionOf } from './read-stable.js'

/** How much of a file one read takes, from either end (a parameter only so tests can cross chunk edges). */
const CHUNK = 64 * 1024

interface ParsedLine {
  readonly seq: number
  readonly facts: SummaryFacts
}

/** One event line's seq and summary facts; `undefined` for a line that is not a well-formed event (damage, header). */
function parseLine(bytes: Uint8Array): ParsedLine | undefined {
  try {
    const value = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as {
      type?: unknown
      seq?: unknown
      time?: unknown
      data?: unknown
    }
    if (typeof value.type !== 'string' || typeof value.seq !== 'number' || typeof value.time !== 'number')
      return undefined
    return { seq: value.seq, facts: summaryFacts({ type: value.type, time: value.time, data: value.data }) }
  } catch {
    return undefined
  }
}

async function readAt(handle: FileHandleLike, position: number, length: number): Promise<Uint8Array> {
  const buffer = new Uint8Array(length)
  let filled = 0
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled)
    if (bytesRead === 0) break
    filled += bytesRead
  }
  return buffer.subarray(0, filled)
}

/**
 * The complete lines of `[from, size)` from the last to the first, read in chunks from the end: a line ends with
 * `\n`, so bytes after the last `\n` (a torn tail) are never yielded. Stops early when the caller breaks.
 */
async function* linesBackward(
  handle: FileHandleLike,
  from: number,
  size: number,
  chunkBytes: number,
): AsyncGenerator<{ line: Uint8Array; start: number }> {
  let end = size
  let carry: Uint8Array = new Uint8Array(0)
  let sawNewline = false
  while (end > from) {
    const start = Math.max(from, end - chunkBytes)
    const chunk = Buffer.concat([await readAt(handle, start, end - start), carry])
    end = start
    let stop = chunk.length
    for (let i = chunk.length - 1; i >= 0; i--) {
      if (chunk[i] !== 0x0a) continue
      if (sawNewline && i + 1 < stop) yield { line: chunk.subarray(i + 1, stop), start: start + i + 1 }
      sawNewline = true
      stop = i
    }
    carry = sawNewline ? chunk.subarray(0, stop) : chunk
  }
  if (sawNewline && carry.length > 0) yield { line: carry, start: from }
}

/**
 * A summary of one log without reading all of it: the header and the first prompt from the front, the last event,
 * the latest turn number and the latest model from the back. Each byte is read at most once, so a log whose facts sit
 * near its ends — every log an agent wrote — costs a few chunk reads whatever its length.
 */
async function summarizeFile(
  handle: FileHandleLike,
  snapshot: SessionSnapshotInfo,
  size: number,
  chunkBytes: number,
): Promise<SessionSummary> {
  const head = await readAt(handle, 0, Math.min(size, chunkBytes))
  const headerEnd = head.indexOf(0x0a) + 1
  let events = 0
  let lastActivity: number | undefined
  let turns: number | undefined
  let model: SummaryFacts['model']
  let tailPrompt: string | undefined
  let tailStart = size
  for await (const { line, start } of linesBackward(handle, headerEnd, size, chunkBytes)) {
    tailStart = start
    const parsed = parseLine(line)
    if (parsed === undefined) continue
    if (lastActivity === undefined) {
      lastActivity = parsed.facts.time
      events = parsed.seq + 1
    }
    turns ??= parsed.facts.turn
    model ??= parsed.facts.model
    tailPrompt = parsed.facts.prompt ?? tailPrompt
    if (turns !== undefined && model !== undefined) break
  }
  const firstPrompt = (await firstPromptBefore(handle, head, headerEnd, tailStart, chunkBytes)) ?? tailPrompt
  return Object.freeze({
    meta: snapshot.meta,
    revision: snapshot.revision,
    events,
    turns: turns ?? 0,
    lastActivity: lastActivity ?? snapshot.meta.createdAt,
    ...(model === undefined ? {} : { model }),
    ...(firstPrompt === undefined ? {} : { firstPrompt }),
  })
}

/** The first user prompt among the complete lines of `[headerEnd, end)`, read forward from the head chunk on. */
async function firstPromptBefore(
  handle: FileHandleLike,
  head: Uint8Array,
  headerEnd: number,
  end: number,
  chunkBytes: number,
): Promise<string | undefined> {
  let buffer: Uint8Array = head.subarray(headerEnd)
  let position = headerEnd
  let read = head.length
  while (position < end) {
    const newline = buffer.indexOf(0x0a)
    if (newline < 0) {
      if (read >= end) return undefined
      const more = await readAt(handle, read, Math.min(chunkBytes, end - read))
      read += more.length
      buffer = Buffer.concat([buffer, more])
      continue
    }
    const prompt = parseLine(buffer.subarray(0, newline))?.facts.prompt
    if (prompt !== undefined) return prompt
    position += newline + 1
    buffer = buffer.subarray(newline + 1)
  }
  return undefined
}

/** Summaries of the listed logs, each read between two stats and again if the file changed meanwhile. */
export async function readSummaries(
  fs: FsLayer,
  root: string,
  pathOf: (id: string) => string,
  snapshots: readonly SessionSnapshotInfo[],
  signal?: AbortSignal,
  chunkBytes = CHUNK,
): Promise<readonly SessionSummary[]> {
  const out: SessionSummary[] = []
  for (let snapshot of snapshots) {
    for (;;) {
      signal?.throwIfAborted()
      const path = pathOf(snapshot.meta.id)
      let handle: FileHandleLike
      try {
        handle = await fs.open(path, 'r')
      } catch (error) {
        if (isNotFound(error)) break // removed since it was listed
        throw error
      }
      let summary: SessionSummary
      try {
        const size = Number((await fs.stat(path)).size)
        summary = await summarizeFile(handle, snapshot, size, chunkBytes)
      } finally {
        await handle.close()
      }
      const revision = revisionOf(root, await fs.stat(path))
      if (revision === snapshot.revision) {
        out.push(summary)
        break
      }
      snapshot = { meta: snapshot.meta, revision }
    }
  }
  return Object.freeze(out)
}
