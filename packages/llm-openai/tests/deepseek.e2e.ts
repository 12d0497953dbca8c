/**
 * Optional live check against the real DeepSeek API. Excluded from the normal run (the workspace
 * only collects *.spec.ts); runs only with BRIDLE_E2E=1 and DEEPSEEK_API_KEY set:
 *   BRIDLE_E2E=1 DEEPSEEK_API_KEY=sk-... pnpm vitest run --config vitest.e2e.config.ts
 */
import { BlockAssembler, LlmRuntime, createUserMessage, streamGrammarViolations, type StreamChunk } from '@bridle/llm'
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import * as llmOpenai from '../src/index.js'

const enabled = process.env.BRIDLE_E2E === '1' && (process.env.DEEPSEEK_API_KEY ?? '') !== ''

describe.skipIf(!enabled)('DeepSeek live', () => {
  it('streams a short answer with usage', async () => {
    const ctx = new Context()
    ctx.plugin(LlmRuntime)
    ctx.plugin(llmOpenai, {})
    const chunks: StreamChunk[] = []
    const assembler = new BlockAssembler()
    for await (const chunk of ctx.llm.stream({
      provider: 'deepseek',
      model: 'deepseek-chat',
      maxTokens: 32,
      messages: [createUserMessage('Reply with the single word: pong')],
    })) {
      chunks.push(chunk)
      assembler.push(chunk)
    }
    expect(streamGrammarViolations(chunks)).toEqual([])
    expect(assembler.finish.kind).toBe('stop')
    expect(assembler.usage?.outputTokens).toBeGreaterThan(0)
  }, 60_000)
})
