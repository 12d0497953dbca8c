/**
 * A model's stream, filtered as a stream (docs/security.md#streams): each block's text — answer, reasoning, tool-call
 * arguments — passes its own `SecretStream`, so a secret split over any number of deltas is replaced, and only a
 * tail that could begin a secret waits for the next delta. A block's held tail is released before its `block-end`
 * (or before `finish` when it stays open), and the authoritative blocks are redacted whole, so the deltas a consumer
 * appends and the message it assembles from them say the same thing.
 */
import type { CallId } from './ids.js'
import { knownSecrets } from './known-secrets.js'
import type { SecretFilter } from './secret-filter.js'
import type { SecretStream } from './secret-stream.js'
import type { StreamChunk } from './stream.js'

type DeltaKind = 'text-delta' | 'reasoning-delta' | 'tool-call-delta'

/** The filter state of one block index. */
interface BlockFilter {
  index: number
  kind: DeltaKind
  stream: SecretStream
  /** The last id and name a tool-call delta carried (a released tail repeats them). */
  id: CallId
  name?: string
}

/**
 * Yields `source`'s chunks with every known secret (`filter`, by default the process-wide one) replaced by
 * `[redacted]`. While the filter is empty and nothing is held, chunks pass through untouched (the same objects).
 */
export async function* redactChunks(
  source: AsyncIterable<StreamChunk>,
  filter: SecretFilter = knownSecrets(),
): AsyncGenerator<StreamChunk, void, undefined> {
  const blocks = new Map<number, BlockFilter>()
  const started = new Set<number>()
  let last: BlockFilter | undefined
  for await (const chunk of source) {
    if (filter.size === 0 && blocks.size === 0) {
      if (chunk.type === 'block-start') started.add(chunk.index)
      yield chunk
      continue
    }
    switch (chunk.type) {
      case 'text-delta':
      case 'reasoning-delta': {
        // consecutive deltas of one block are the common case: no map lookup for them
        let block = last !== undefined && last.index === chunk.index ? last : blocks.get(chunk.index)
        const first = block === undefined
        block ??= blockOf(blocks, filter, chunk.index, chunk.type)
        last = block
        const text = block.stream.push(chunk.text)
        // a delta-only stream orders its blocks by first delta: keep that order even when all of it is held
        if (text !== '' || (first && !started.has(chunk.index)))
          yield text === chunk.text ? chunk : { type: chunk.type, index: chunk.index, text }
        break
      }
      case 'tool-call-delta': {
        const block = blockOf(blocks, filter, chunk.index, chunk.type)
        const id = filter.redact(chunk.id) as CallId
        const name = chunk.name === undefined ? undefined : filter.redact(chunk.name)
        if (id !== '') block.id = id
        if (name !== undefined) block.name = name
        const argumentsDelta = block.stream.push(chunk.argumentsDelta)
        yield { ...chunk, id, ...(name === undefined ? {} : { name }), argumentsDelta }
        break
      }
      case 'block-end':
        last = undefined
        yield* release(blocks, chunk.index)
        yield filter.redactJson(chunk)
        break
      case 'finish':
        last = undefined
        for (const index of [...blocks.keys()]) yield* release(blocks, index)
        yield filter.redactJson(chunk)
        break
      default:
        if (chunk.type === 'block-start') started.add(chunk.index)
        yield filter.redactJson(chunk)
    }
  }
  for (const index of [...blocks.keys()]) yield* release(blocks, index)
}

function blockOf(blocks: Map<number, BlockFilter>, filter: SecretFilter, index: number, kind: DeltaKind): BlockFilter {
  let block = blocks.get(index)
  if (block === undefined) {
    block = { index, kind, stream: filter.stream(), id: '' as CallId }
    blocks.set(index, block)
  }
  return block
}

/** The held tail of block `index` as one last delta of its kind (nothing when no tail is held); forgets the block. */
function* release(blocks: Map<number, BlockFilter>, index: number): Generator<StreamChunk> {
  const block = blocks.get(index)
  if (block === undefined) return
  blocks.delete(index)
  const rest = block.stream.end()
  if (rest === '') return
  if (block.kind === 'tool-call-delta') {
    yield {
      type: 'tool-call-delta',
      index,
      id: block.id,
      ...(block.name === undefined ? {} : { name: block.name }),
      argumentsDelta: rest,
    }
  } else yield { type: block.kind, index, text: rest }
}
