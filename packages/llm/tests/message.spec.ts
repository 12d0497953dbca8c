import { describe, expect, it } from 'vitest'
import {
  boundContextSummary,
  callId,
  CONTEXT_SUMMARY_MAX_CHARS,
  contentHasImage,
  createAssistantMessage,
  createMessage,
  createToolResultMessage,
  createUserMessage,
  freezeMessage,
  isBlockType,
  isDeepFrozen,
  LlmError,
  messageId,
  textOf,
  type ContentBlock,
  type MessageSource,
} from '@bridle/llm'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

function expectFrozenToLeaves(value: unknown): void {
  const stack = [value]
  while (stack.length) {
    const v = stack.pop()
    if (typeof v === 'object' && v !== null) {
      expect(Object.isFrozen(v)).toBe(true)
      stack.push(...Object.values(v))
    }
  }
}

describe('message constructors: rejections', () => {
  it('throw TypeError (never LlmError) on structurally invalid input', () => {
    const bad: (() => unknown)[] = [
      () => createMessage({ role: 'robot' as never, content: [], source: { kind: 'user' } }),
      () => createMessage({ role: 'user', content: 'text' as never, source: { kind: 'user' } }),
      () => createMessage({ role: 'user', content: [{ type: 'text' } as never], source: { kind: 'user' } }),
      () =>
        createMessage({
          role: 'user',
          content: [{ type: 'tool-call', id: 'c', name: 'n' } as never],
          source: { kind: 'user' },
        }),
      () => createMessage({ role: 'user', content: [null as never], source: { kind: 'user' } }),
      () => createMessage({ role: 'user', content: [], source: {} as never }),
      () => createMessage({ role: 'user', content: [], source: { kind: 'plugin' } as never }),
      () =>
        createMessage({ role: 'user', content: [], source: { kind: 'plugin', plugin: 'p', form: 'bogus' } as never }),
      () => createUserMessage([{ type: 'image', attachment: { id: '' } } as never]),
      () => createUserMessage([{ type: 'tool-result', toolCallId: 'c', content: [{ type: 'text' }] } as never]),
      () => createAssistantMessage({ content: [], source: { provider: '', model: 'm' } }),
      () => createToolResultMessage({ callId: '' as never, content: 'x' }),
    ]
    for (const make of bad) {
      let error: unknown
      try {
        make()
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(TypeError)
      expect(error).not.toBeInstanceOf(LlmError)
    }
  })

  it('reject a notice without summary and a snapshot without sections', () => {
    expect(() => createUserMessage('x', { kind: 'plugin', plugin: 'p', form: 'notice' } as never)).toThrow(
      /notice context requires a one-line summary/,
    )
    expect(() => createUserMessage('x', { kind: 'plugin', plugin: 'p', form: 'snapshot' } as never)).toThrow(
      /snapshot context requires sections/,
    )
    expect(() =>
      createUserMessage('x', { kind: 'plugin', plugin: 'p', form: 'notice', summary: 'two\nlines' }),
    ).toThrow(TypeError)
    expect(() =>
      createUserMessage('x', { kind: 'plugin', plugin: 'p', form: 'notice', summary: 'x'.repeat(121) }),
    ).toThrow(TypeError)
    expect(() =>
      createUserMessage('x', { kind: 'plugin', plugin: 'p', form: 'snapshot', sections: [{ name: 'cwd' }] } as never),
    ).toThrow(/sections\[0\]/)
  })

  it('freezeMessage rejects a missing, empty or non-string id', () => {
    const base = { role: 'user', content: [], source: { kind: 'user' } }
    expect(() => freezeMessage(base as never)).toThrow(TypeError)
    expect(() => freezeMessage({ ...base, id: '' } as never)).toThrow(/message id/)
    expect(() => freezeMessage({ ...base, id: 7 } as never)).toThrow(TypeError)
    expect(() => freezeMessage({ ...base, id: 'x', role: 'tool' } as never)).toThrow(TypeError)
  })
})

describe('message constructors: results', () => {
  it('mint unique UUID ids', () => {
    const ids = new Set<string>()
    for (let i = 0; i < 200; i++) {
      const id = createUserMessage('hi').id
      expect(id).toMatch(UUID)
      ids.add(id)
    }
    expect(ids.size).toBe(200)
  })

  it('return values frozen to the leaves and recorded as deep-frozen', () => {
    const user = createUserMessage('hello')
    const assistant = createAssistantMessage({
      content: [
        { type: 'reasoning', text: 'think' },
        { type: 'tool-call', id: callId('c1'), name: 'read', arguments: '{"path":"a"}' },
      ],
      source: { provider: 'p', model: 'm', replayState: { raw: [1, { x: true }] } },
    })
    const tool = createToolResultMessage({ callId: callId('c1'), content: 'file text', isError: true })
    for (const m of [user, assistant, tool]) {
      expectFrozenToLeaves(m)
      expect(isDeepFrozen(m)).toBe(true)
    }
    expect(user).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'hello' }], source: { kind: 'user' } })
    expect(assistant.role).toBe('assistant')
    expect(assistant.source).toEqual({
      kind: 'model',
      provider: 'p',
      model: 'm',
      replayState: { raw: [1, { x: true }] },
    })
    expect(tool).toMatchObject({
      role: 'user',
      source: { kind: 'tool', callId: 'c1' },
      content: [
        { type: 'tool-result', toolCallId: 'c1', isError: true, content: [{ type: 'text', text: 'file text' }] },
      ],
    })
    expect(tool.content).toHaveLength(1)
  })

  it('never freeze the caller’s own objects', () => {
    const content: ContentBlock[] = [{ type: 'text', text: 'a' }]
    const source: MessageSource = {
      kind: 'plugin',
      plugin: 'p',
      form: 'snapshot',
      sections: [{ name: 'cwd', text: '/w' }],
    }
    const m = createMessage({ role: 'user', content, source })
    expect(Object.isFrozen(content)).toBe(false)
    expect(Object.isFrozen(source)).toBe(false)
    expect(m.source).toEqual(source)
  })

  it('a tool result without isError omits the flag', () => {
    const tool = createToolResultMessage({ callId: callId('c'), content: [{ type: 'text', text: 'ok' }] })
    expect('isError' in tool.content[0]).toBe(false)
  })

  it('freezeMessage keeps the id and clones', () => {
    const original = {
      id: 'msg-1',
      role: 'assistant',
      content: [{ type: 'text', text: 'x' }],
      source: { kind: 'model', provider: 'p', model: 'm' },
    }
    const frozen = freezeMessage(original as never)
    expect(frozen.id).toBe(messageId('msg-1'))
    expect(frozen).toEqual(original)
    expect(Object.isFrozen(original)).toBe(false)
    expectFrozenToLeaves(frozen)
    // a rewrite (e.g. compaction) keeps the id
    const rewritten = freezeMessage({ ...frozen, content: [{ type: 'text', text: 'shorter' }] })
    expect(rewritten.id).toBe(frozen.id)
  })

  it('accept block types and source kinds added by declaration merging', () => {
    const m = createMessage({
      role: 'user',
      content: [{ type: 'custom', payload: 1 } as never],
      source: { kind: 'replay', from: 'x' } as never,
    })
    expect(m.content[0]).toEqual({ type: 'custom', payload: 1 })
  })

  it('accept the snapshot producer shape from system-prompt', () => {
    const m = createUserMessage('ctx', {
      kind: 'plugin',
      plugin: '@bridle/system-prompt',
      form: 'snapshot',
      sections: [{ name: 'workspace', text: 'cwd: /w' }],
    })
    expect(m.source).toMatchObject({ form: 'snapshot' })
  })
})

describe('content helpers', () => {
  const blocks: ContentBlock[] = [
    { type: 'text', text: 'a' },
    { type: 'reasoning', text: 'hidden' },
    { type: 'tool-call', id: callId('c'), name: 'n', arguments: '{}' },
    { type: 'text', text: 'b' },
  ]
  it('textOf joins text blocks only', () => {
    expect(textOf(blocks)).toBe('a\nb')
    expect(textOf(blocks, '')).toBe('ab')
    expect(textOf([])).toBe('')
  })
  it('isBlockType narrows', () => {
    expect(isBlockType(blocks[2], 'tool-call')).toBe(true)
    expect(isBlockType(blocks[2], 'text')).toBe(false)
    expect(isBlockType(undefined, 'text')).toBe(false)
  })
  it('contentHasImage looks inside tool results', () => {
    const image: ContentBlock = { type: 'image', attachment: { id: 'a1', mediaType: 'image/png' } }
    expect(contentHasImage(blocks)).toBe(false)
    expect(contentHasImage([image])).toBe(true)
    expect(contentHasImage([{ type: 'tool-result', toolCallId: callId('c'), content: [image] }])).toBe(true)
  })
})

describe('boundContextSummary', () => {
  it('keeps 119 and 120 characters, cuts 121 to 119 + …', () => {
    expect(CONTEXT_SUMMARY_MAX_CHARS).toBe(120)
    const s119 = 'a'.repeat(119)
    const s120 = 'b'.repeat(120)
    const s121 = 'c'.repeat(121)
    expect(boundContextSummary(s119)).toBe(s119)
    expect(boundContextSummary(s120)).toBe(s120)
    const cut = boundContextSummary(s121)
    expect(cut).toBe(`${'c'.repeat(119)}…`)
    expect(cut.length).toBe(120)
  })
  it('collapses newlines and whitespace runs, trims', () => {
    expect(boundContextSummary('  git status\n\n  changed:\tsrc/a.ts  ')).toBe('git status changed: src/a.ts')
    const long = `${'word '.repeat(40)}\nend`
    const out = boundContextSummary(long)
    expect(out).not.toMatch(/\n/)
    expect(out.length).toBe(120)
    expect(out.endsWith('…')).toBe(true)
  })
  it('its output is always accepted as a notice summary', () => {
    const summary = boundContextSummary(`line one\nline two ${'x'.repeat(300)}`)
    expect(() => createUserMessage('n', { kind: 'plugin', plugin: 'p', form: 'notice', summary })).not.toThrow()
  })
})
