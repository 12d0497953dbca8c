/**
 * The loopback server speaks the wire format the official SDK reads: the SDK's own stream helper, pointed at it,
 * assembles the same answer the adapter does — text, thinking with its signature, redacted thinking, tool input.
 */
import './setup.js'
import Anthropic from '@anthropic-ai/sdk'
import { afterEach, describe, expect, it } from 'vitest'
import { answerEvents, startMockServer, type CannedBlock, type MockServer } from '../src/testing.js'
import { boot, run, teardown, type Harness } from './harness.js'

let server: MockServer | undefined
let h: Harness | undefined
afterEach(async () => {
  await server?.close()
  await teardown(h)
  server = h = undefined
})

const blocks: CannedBlock[] = [
  { type: 'thinking', fragments: ['Weigh ', 'it.'], signature: 'Sig+/==' },
  { type: 'redacted_thinking', data: 'opaque-data' },
  { type: 'text', fragments: ['I will ', 'look.'] },
  { type: 'tool_use', id: 'toolu_9', name: 'read_file', fragments: ['{"path":', '"a.txt"}'] },
]

describe('the mock server against the official SDK', () => {
  it("the SDK's MessageStream assembles what the adapter assembles", async () => {
    const usage = { input_tokens: 10, cache_read_input_tokens: 2048, cache_creation_input_tokens: 0 }
    server = await startMockServer([{ kind: 'sse', events: answerEvents(blocks, { usage, outputTokens: 33 }) }])
    const client = new Anthropic({
      apiKey: 'sk-ant-test-sdk-000000',
      baseURL: server.url,
      maxRetries: 0,
      logLevel: 'off',
    })
    const final = await client.messages
      .stream({ model: 'mock-claude', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })
      .finalMessage()
    expect(final.stop_reason).toBe('tool_use')
    expect(final.content).toEqual([
      { type: 'thinking', thinking: 'Weigh it.', signature: 'Sig+/==' },
      { type: 'redacted_thinking', data: 'opaque-data' },
      { type: 'text', text: 'I will look.' },
      { type: 'tool_use', id: 'toolu_9', name: 'read_file', input: { path: 'a.txt' } },
    ])
    expect(final.usage).toMatchObject({ ...usage, output_tokens: 33 })

    h = await boot([{ kind: 'sse', events: answerEvents(blocks, { usage, outputTokens: 33 }) }])
    const ours = await run(h.ctx)
    expect(ours.message.content).toEqual([
      { type: 'reasoning', text: 'Weigh it.' },
      { type: 'text', text: 'I will look.' },
      { type: 'tool-call', id: 'toolu_9', name: 'read_file', arguments: '{"path":"a.txt"}' },
    ])
    expect(ours.usage).toEqual({ inputTokens: 10, outputTokens: 33, cacheReadTokens: 2048, cacheWriteTokens: 0 })
  })
})
