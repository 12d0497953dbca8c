import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { BlockAssembler, callId, streamGrammarViolations, type ContentBlock, type StreamChunk } from '@bridle/llm'
import { splitAt as split } from '../../../tests/support/split-text.js'

const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  fc.string().map((text) => ({ type: 'text' as const, text })),
  fc.string().map((text) => ({ type: 'reasoning' as const, text })),
  fc
    .record({
      id: fc.stringMatching(/^[a-z0-9_]{1,8}$/),
      name: fc.stringMatching(/^[a-z_]{1,8}$/),
      arguments: fc.json(),
    })
    .map((c) => ({ type: 'tool-call' as const, id: callId(c.id), name: c.name, arguments: c.arguments })),
)

function toChunks(blocks: ContentBlock[], cuts: number[], withEnd: boolean): StreamChunk[] {
  const chunks: StreamChunk[] = []
  blocks.forEach((b, index) => {
    chunks.push({ type: 'block-start', index, blockType: b.type })
    if (b.type === 'text' || b.type === 'reasoning') {
      for (const part of split(b.text, cuts)) {
        chunks.push(
          b.type === 'text'
            ? { type: 'text-delta', index, text: part }
            : { type: 'reasoning-delta', index, text: part },
        )
      }
    } else if (b.type === 'tool-call') {
      split(b.arguments, cuts).forEach((part, i) => {
        chunks.push({
          type: 'tool-call-delta',
          index,
          id: callId(i === 0 ? b.id : ''),
          ...(i === 0 ? { name: b.name } : {}),
          argumentsDelta: part,
        })
      })
    }
    if (withEnd) chunks.push({ type: 'block-end', index, block: b })
  })
  const hasCalls = blocks.some((b) => b.type === 'tool-call')
  chunks.push({ type: 'finish', reason: { kind: hasCalls ? 'tool-calls' : 'stop' } })
  return chunks
}

describe('BlockAssembler properties', () => {
  it('reassembles any split of grammatical streams, with or without block-end', () => {
    fc.assert(
      fc.property(
        fc.array(block, { maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.boolean(),
        (blocks, cuts, withEnd) => {
          const chunks = toChunks(blocks, cuts, withEnd)
          if (withEnd) expect(streamGrammarViolations(chunks)).toEqual([])
          const assembler = new BlockAssembler()
          for (const chunk of chunks) assembler.push(chunk)
          expect(assembler.blocks()).toEqual(blocks)
        },
      ),
    )
  })
})
