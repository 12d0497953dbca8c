/**
 * A tool result past the session's JSON limit becomes an error result that names the limit, so the loop can record
 * it and the model reads why (before, the loop's append failed and the turn ended with an unknown error).
 */
import { randomUUID } from 'node:crypto'
import { createToolResultMessage, MAX_JSON_BYTES, MESSAGE_JSON_LIMITS, callId } from '@bridle/llm'
import { describe, expect, it } from 'vitest'
import { call, plugin, setup } from './helpers.js'

const flat = (length: number, ch: string) => Buffer.alloc(length, ch).toString('latin1')

function nested(levels: number): unknown {
  let value: unknown = 0
  for (let i = 0; i < levels; i++) value = [value]
  return value
}

describe('tool results past the JSON limit', () => {
  it('a result too large to record becomes an error result naming its size', async () => {
    const { root, tools } = setup()
    plugin(root).ctx.tools.register({
      name: 'big',
      description: 'd',
      parameters: { type: 'object' },
      execute: () => flat(MAX_JSON_BYTES, 'b'),
    })
    const result = await tools.execute(call('big', '{}'))
    expect(result.isError).toBe(true)
    expect(result.error?.info).toEqual({ name: 'JsonLimitError', code: 'JSON_TOO_LARGE' })
    expect((result.content[0] as { text: string }).text).toMatch(
      /^Error: tool "big" returned a result that is \d+ bytes as JSON, over the 31\.9 MiB limit \(33488896 bytes; passed at content\[0\]\.text\); it was dropped$/,
    )
  })

  it('content nested past the message limit, and deep meta, are refused the same way', async () => {
    const { root, tools } = setup()
    const ctx = plugin(root).ctx
    ctx.tools.register({
      name: 'deep',
      description: 'd',
      parameters: { type: 'object' },
      execute: () => [{ type: 'custom', data: nested(2000) }] as never,
    })
    ctx.tools.register({
      name: 'meta',
      description: 'd',
      parameters: { type: 'object' },
      execute: () => ({ content: [{ type: 'text', text: 'ok' }], meta: nested(2000) as never }),
    })
    const deep = await tools.execute(call('deep', '{}'))
    expect(deep.error?.info?.code).toBe('JSON_TOO_DEEP')
    expect((deep.content[0] as { text: string }).text).toMatch(
      /^Error: tool "deep" returned a result that nests deeper than the 996-level JSON limit \(at content\[0\]\.data\[0\]/,
    )
    const meta = await tools.execute(call('meta', '{}'))
    expect((meta.content[0] as { text: string }).text).toMatch(
      /^Error: tool "meta" returned a result that nests deeper than the 996-level JSON limit \(at meta\[0\]/,
    )
  })

  it('a thrown error with a huge message is bounded too', async () => {
    const { root, tools } = setup()
    plugin(root).ctx.tools.register({
      name: 'loud',
      description: 'd',
      parameters: { type: 'object' },
      execute: () => {
        throw new Error(flat(MAX_JSON_BYTES, 'e'))
      },
    })
    const result = await tools.execute(call('loud', '{}'))
    expect(result.error?.info?.code).toBe('JSON_TOO_LARGE')
    expect(result.error!.message.length).toBeLessThan(300)
  })

  it('the largest result kept still makes a tool-result message; one byte more is refused', async () => {
    const { root, tools } = setup()
    const id = callId('c-edge')
    // The recorded shape around one text block, with an empty text: its size is the overhead of the text.
    const around = {
      message: {
        id: randomUUID(),
        role: 'user',
        content: [{ type: 'tool-result', toolCallId: id, content: [{ type: 'text', text: '' }] }],
        source: { kind: 'tool', callId: id },
      },
    }
    const largest = MESSAGE_JSON_LIMITS.maxBytes - Buffer.byteLength(JSON.stringify(around))
    const ctx = plugin(root).ctx
    let length = largest
    ctx.tools.register({
      name: 'edge',
      description: 'd',
      parameters: { type: 'object' },
      execute: () => flat(length, 'k'),
    })
    const kept = await tools.execute(call('edge', '{}', { callId: id }))
    expect(kept.isError).toBe(false)
    expect(() => createToolResultMessage({ callId: id, content: [...kept.content] })).not.toThrow()
    length = largest + 1
    const refused = await tools.execute(call('edge', '{}', { callId: id }))
    expect(refused.error?.info?.code).toBe('JSON_TOO_LARGE')
  })
})
