/**
 * Thinking survives a tool loop byte for byte: the signature, the thinking text and a redacted block go back in the
 * next request exactly as they came, in their place before the tool call.
 */
import { callId, createToolResultMessage, createUserMessage, freezeMessage } from '@bridle/llm'
import { afterEach, describe, expect, it } from 'vitest'
import { answerEvents, textAnswer } from '../src/testing.js'
import { bodyOf, boot, run, teardown, type Harness } from './harness.js'

let h: Harness | undefined
afterEach(async () => {
  await teardown(h)
  h = undefined
})

// a signature with the characters JSON and base64 use, and thinking text with escapes and astral characters
const SIGNATURE = 'EqQBCkYIARgCKkD/+aZ9\\u00e9"quoted"==' + 'x'.repeat(300)
const THINKING = 'Line one\n\ttab "quote" \\ back 你好 🌍'
const REDACTED = 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT+/=='

describe('thinking replay', () => {
  it('sends thinking, redacted thinking and the tool call back unchanged, through a stored-and-reloaded log', async () => {
    h = await boot([
      {
        kind: 'sse',
        events: answerEvents([
          { type: 'thinking', fragments: [THINKING.slice(0, 7), THINKING.slice(7)], signature: SIGNATURE },
          { type: 'redacted_thinking', data: REDACTED },
          { type: 'tool_use', id: 'toolu_1', name: 'read_file', fragments: ['{"path":"package.json"}'] },
        ]),
      },
      { kind: 'sse', events: textAnswer(['done']) },
    ])
    const prompt = createUserMessage('read it')
    const first = await run(h.ctx, { messages: [prompt] })
    expect(first.finish).toEqual({ kind: 'tool-calls' })
    // what a JSONL log stores and a resume reloads
    const reloaded = freezeMessage(JSON.parse(JSON.stringify(first.message)))
    const result = createToolResultMessage({ callId: callId('toolu_1'), content: '{"name":"bridle"}' })
    await run(h.ctx, { messages: [prompt, reloaded, result] })
    const sent = h.server.requests[1]!.rawBody
    const assistant = (bodyOf(h.server, 1).messages as { role: string; content: unknown[] }[])[1]!
    expect(assistant).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: THINKING, signature: SIGNATURE },
        { type: 'redacted_thinking', data: REDACTED },
        { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'package.json' } },
      ],
    })
    // byte for byte on the wire: the JSON text of the thinking block as the API sent it
    expect(sent).toContain(
      `{"type":"thinking","thinking":${JSON.stringify(THINKING)},"signature":${JSON.stringify(SIGNATURE)}}`,
    )
  })

  it('drops the thinking of a message whose content no longer matches its replay layout', async () => {
    h = await boot([
      {
        kind: 'sse',
        events: answerEvents([
          { type: 'thinking', fragments: ['t'], signature: 'S' },
          { type: 'text', fragments: ['a'] },
        ]),
      },
      { kind: 'sse', events: textAnswer(['b']) },
    ])
    const first = await run(h.ctx)
    const rewritten = freezeMessage({ ...first.message, content: [{ type: 'text', text: 'summary' }] })
    await run(h.ctx, { messages: [createUserMessage('q'), rewritten, createUserMessage('next')] })
    expect((bodyOf(h.server, 1).messages as unknown[])[1]).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'summary' }],
    })
  })
})
