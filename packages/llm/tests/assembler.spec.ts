import { describe, expect, it } from 'vitest'
import { BlockAssembler, callId, isDeepFrozen, type StreamChunk } from '@bridle/llm'

function assemble(chunks: StreamChunk[]): BlockAssembler {
  const assembler = new BlockAssembler()
  for (const chunk of chunks) assembler.push(chunk)
  return assembler
}

describe('BlockAssembler', () => {
  it('throws TypeError for an un-ended partial of an unknown type', () => {
    const a = assemble([{ type: 'block-start', index: 0, blockType: 'image' }])
    expect(() => a.blocks()).toThrow(TypeError)
    expect(() => a.blocks()).toThrow(/un-ended image block at index 0/)
  })

  it('drops tool calls after a max-tokens finish', () => {
    const a = assemble([
      { type: 'text-delta', index: 0, text: 'Let me read' },
      { type: 'tool-call-delta', index: 1, id: callId('c1'), name: 'read', argumentsDelta: '{"pa' },
      { type: 'finish', reason: { kind: 'max-tokens' } },
    ])
    expect(a.blocks()).toEqual([{ type: 'text', text: 'Let me read' }])
    const ended = assemble([
      { type: 'block-end', index: 0, block: { type: 'tool-call', id: callId('c'), name: 'n', arguments: '{}' } },
      { type: 'finish', reason: { kind: 'max-tokens' } },
    ])
    expect(ended.blocks()).toEqual([])
  })

  it('assembles delta-only text and reasoning', () => {
    const a = assemble([
      { type: 'reasoning-delta', index: 0, text: 'think ' },
      { type: 'reasoning-delta', index: 0, text: 'hard' },
      { type: 'text-delta', index: 1, text: 'Hel' },
      { type: 'text-delta', index: 1, text: 'lo' },
    ])
    expect(a.blocks()).toEqual([
      { type: 'reasoning', text: 'think hard' },
      { type: 'text', text: 'Hello' },
    ])
    expect(a.finish).toEqual({ kind: 'stop' })
  })

  it('first start wins and block order is first-seen order of indexes', () => {
    const a = assemble([
      { type: 'block-start', index: 5, blockType: 'text' },
      { type: 'block-start', index: 2, blockType: 'reasoning' },
      { type: 'block-start', index: 5, blockType: 'reasoning' },
      { type: 'text-delta', index: 5, text: 'a' },
      { type: 'reasoning-delta', index: 2, text: 'r' },
    ])
    expect(a.blocks()).toEqual([
      { type: 'text', text: 'a' },
      { type: 'reasoning', text: 'r' },
    ])
  })

  it('first end wins and later deltas for that index are ignored', () => {
    const a = assemble([
      { type: 'block-start', index: 0, blockType: 'text' },
      { type: 'text-delta', index: 0, text: 'draft' },
      { type: 'block-end', index: 0, block: { type: 'text', text: 'authoritative' } },
      { type: 'text-delta', index: 0, text: ' late' },
      { type: 'block-end', index: 0, block: { type: 'text', text: 'second' } },
    ])
    expect(a.blocks()).toEqual([{ type: 'text', text: 'authoritative' }])
  })

  it('assembles tool calls: id when non-empty, name when given, raw arguments; synthesizes call-<index>', () => {
    const a = assemble([
      { type: 'tool-call-delta', index: 0, id: callId(''), name: 'read_file', argumentsDelta: '{"path":' },
      { type: 'tool-call-delta', index: 0, id: callId('call_abc'), argumentsDelta: '"package.json"' },
      { type: 'tool-call-delta', index: 0, id: callId(''), argumentsDelta: '}' },
      { type: 'tool-call-delta', index: 3, id: callId(''), name: 'ls', argumentsDelta: '{ "x" : 1 }' },
      { type: 'finish', reason: { kind: 'tool-calls' } },
    ])
    expect(a.blocks()).toEqual([
      { type: 'tool-call', id: 'call_abc', name: 'read_file', arguments: '{"path":"package.json"}' },
      { type: 'tool-call', id: 'call-3', name: 'ls', arguments: '{ "x" : 1 }' },
    ])
  })

  it('usage and finish overwrite; message() is frozen and carries replayState', () => {
    const a = assemble([
      { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } },
      { type: 'text-delta', index: 0, text: 'hi' },
      { type: 'usage', usage: { inputTokens: 2, outputTokens: 3, cacheReadTokens: 0 } },
      { type: 'finish', reason: { kind: 'stop' }, replayState: { id: 'resp_1', items: [1] } },
    ])
    expect(a.usage).toEqual({ inputTokens: 2, outputTokens: 3, cacheReadTokens: 0 })
    expect(a.replayState).toEqual({ id: 'resp_1', items: [1] })
    const message = a.message({ provider: 'deepseek', model: 'deepseek-chat' })
    expect(message.role).toBe('assistant')
    expect(message.source).toEqual({
      kind: 'model',
      provider: 'deepseek',
      model: 'deepseek-chat',
      replayState: { id: 'resp_1', items: [1] },
    })
    expect(message.content).toEqual([{ type: 'text', text: 'hi' }])
    expect(Object.isFrozen(message)).toBe(true)
    expect(isDeepFrozen(message)).toBe(true)
    const noState = assemble([{ type: 'text-delta', index: 0, text: 'x' }]).message({ provider: 'p', model: 'm' })
    expect('replayState' in noState.source).toBe(false)
  })

  it('returned blocks are frozen and do not alias mutable chunk data', () => {
    const block = { type: 'text' as const, text: 'x' }
    const a = assemble([{ type: 'block-end', index: 0, block }])
    const [out] = a.blocks()
    expect(Object.isFrozen(out)).toBe(true)
    expect(Object.isFrozen(block)).toBe(false)
  })
})
