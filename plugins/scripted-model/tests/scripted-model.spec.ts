import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import {
  LlmRuntime,
  createAssistantMessage,
  createToolResultMessage,
  createUserMessage,
  callId,
  streamGrammarViolations,
  type StreamChunk,
} from '@bridle/llm'
import { Config, ScriptedModel, createScriptedAdapter, fillToolResult, locate } from '@bridle/plugin-scripted-model'

const turns = [
  {
    steps: [
      {
        reasoning: 'I should read the manifest.',
        toolCalls: [{ name: 'read_file', arguments: { path: 'package.json' } }],
      },
      { text: 'The package is named {{tool-result:match:"name":\\s*"([^"]+)"}}.' },
    ],
  },
  { steps: [{ text: 'Second turn answer.' }] },
]

async function collect(iterable: AsyncIterable<StreamChunk>) {
  const out: StreamChunk[] = []
  for await (const chunk of iterable) out.push(chunk)
  return out
}

const toolCallMessage = (id: string) =>
  createAssistantMessage({
    content: [{ type: 'tool-call', id: callId(id), name: 'read_file', arguments: '{"path":"package.json"}' }],
    source: { provider: 'scripted', model: 'scripted-demo' },
  })

describe('Config', () => {
  it('names the plugin and the failing field', () => {
    expect(() => Config({ turns: [] })).toThrow(/@bridle\/plugin-scripted-model: invalid config: turns/)
    expect(() => Config({ turns: [{ steps: [{}] }] })).toThrow(/turns\.0\.steps\.0/)
    expect(() => Config({ turns, extra: 1 } as never)).toThrow(/invalid config/)
  })

  it('rejects a regular expression that does not compile at load, naming the field, instead of at the first request', () => {
    expect(() => Config({ turns: [{ match: 'package(', steps: [{ text: 'x' }] }] })).toThrow(
      /invalid config: turns\.0\.match: must be a valid regular expression/,
    )
    expect(() => Config({ turns: [{ steps: [{ text: 'name: {{tool-result:match:([a-z}}' }] }] })).toThrow(
      /invalid config: turns\.0\.steps\.0\.text: .*invalid regular expression/,
    )
    expect(
      Config({ turns: [{ match: 'a|b', steps: [{ text: '{{tool-result:match:"(\\w+)"}} {{tool-result}}' }] }] }).turns,
    ).toHaveLength(1)
  })

  it('fills defaults', () => {
    expect(Config({ turns })).toMatchObject({ provider: 'scripted', model: 'scripted-demo', delayMs: 0 })
  })
})

describe('locate', () => {
  it('derives turn and step from the history alone', () => {
    const q1 = createUserMessage('what is the package name?')
    expect(locate(Config({ turns }).turns, [q1])).toMatchObject({ turnOrdinal: 0, step: 0 })
    const call = toolCallMessage('c1')
    const result = createToolResultMessage({ callId: callId('c1'), content: '1\t{ "name": "demo-app" }' })
    const pos = locate(Config({ turns }).turns, [q1, call, result])
    expect(pos).toMatchObject({ turnOrdinal: 0, step: 1, lastToolResult: '1\t{ "name": "demo-app" }' })
    const q2 = createUserMessage('again')
    expect(locate(Config({ turns }).turns, [q1, call, result, q2]).turn.steps[0]).toEqual({
      text: 'Second turn answer.',
    })
  })

  it('prefers a turn whose match hits the prompt', () => {
    const scripted = Config({ turns: [...turns, { match: 'weather', steps: [{ text: 'Sunny.' }] }] }).turns
    expect(locate(scripted, [createUserMessage('How is the WEATHER?')]).turn.match).toBe('weather')
  })
})

describe('fillToolResult', () => {
  it('quotes the whole result or a capture, and marks what it cannot fill', () => {
    expect(fillToolResult('got {{tool-result}}', 'abc')).toBe('got abc')
    expect(fillToolResult('v={{tool-result:match:v(\\d+)}}', 'x v42 y')).toBe('v=42')
    expect(fillToolResult('{{tool-result}}', undefined)).toMatch(/no tool result/)
    expect(fillToolResult('{{tool-result:match:zz(\\d)}}', 'abc')).toMatch(/not found/)
  })
})

describe('the adapter stream', () => {
  const adapter = createScriptedAdapter(Config({ turns }))

  it('emits a grammatical tool-call response, then an answer quoting the tool result', async () => {
    const q = createUserMessage('name?')
    const first = await collect(adapter.stream({ provider: 'scripted', model: 'm', messages: [q] }))
    expect(streamGrammarViolations(first)).toEqual([])
    expect(first.at(-1)).toEqual({ type: 'finish', reason: { kind: 'tool-calls' } })
    const ends = first.filter((c) => c.type === 'block-end').map((c) => (c as { block: { type: string } }).block.type)
    expect(ends).toEqual(['reasoning', 'tool-call'])

    const call = toolCallMessage('scripted-1-1-1')
    const result = createToolResultMessage({
      callId: callId('scripted-1-1-1'),
      content: '1\t{\n2\t  "name": "demo-app"',
    })
    const second = await collect(adapter.stream({ provider: 'scripted', model: 'm', messages: [q, call, result] }))
    expect(streamGrammarViolations(second)).toEqual([])
    const text = second
      .filter((c) => c.type === 'text-delta')
      .map((c) => (c as { text: string }).text)
      .join('')
    expect(text).toBe('The package is named demo-app.')
  })

  it('throws SCRIPT_EXHAUSTED past the last scripted step', async () => {
    const q = createUserMessage('x')
    const history = [q, toolCallMessage('a'), createToolResultMessage({ callId: callId('a'), content: 'r' })]
    const answer = createAssistantMessage({
      content: [{ type: 'text', text: 'done' }],
      source: { provider: 'scripted', model: 'm' },
    })
    await expect(
      collect(adapter.stream({ provider: 'scripted', model: 'm', messages: [...history, answer] })),
    ).rejects.toMatchObject({
      code: 'SCRIPT_EXHAUSTED',
    })
  })

  it('stops with ABORTED when the signal is aborted', async () => {
    const controller = new AbortController()
    controller.abort()
    const stream = adapter.stream({
      provider: 'scripted',
      model: 'm',
      messages: [createUserMessage('x')],
      signal: controller.signal,
    })
    await expect(collect(stream)).rejects.toMatchObject({ code: 'ABORTED' })
  })
})

describe('the plugin', () => {
  it('registers its route on ctx.llm and unregisters it on dispose', async () => {
    const ctx = new Context()
    ctx.plugin(LlmRuntime)
    const fork = ctx.plugin(ScriptedModel, { turns, provider: 'offline' })
    await new Promise((r) => setTimeout(r, 0))
    expect(ctx.llm.hasProvider('offline')).toBe(true)
    const chunks = await collect(
      ctx.llm.stream({ provider: 'offline', model: 'scripted-demo', messages: [createUserMessage('q')] }),
    )
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', reason: { kind: 'tool-calls' } })
    fork.dispose()
    expect(ctx.llm.hasProvider('offline')).toBe(false)
  })
})
