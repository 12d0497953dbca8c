import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import { createUserMessage, type GenerateOptions, type StreamChunk } from '@bridle/llm'
import { createScriptedAdapter } from '@bridle/plugin-scripted-model'

/** A request for the scripted adapter, with `signal`. */
const request = (signal: AbortSignal): GenerateOptions =>
  ({ provider: 'scripted', model: 'scripted-demo', messages: [createUserMessage('hi')], signal }) as GenerateOptions

// more pieces than Node's default of 10 listeners per event, so a leak would warn
const LONG = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ')

describe('delayMs', () => {
  it('leaves no abort listener behind on the request signal, however many pieces it pauses between', async () => {
    const warnings: Error[] = []
    const onWarning = (warning: Error) => void warnings.push(warning)
    process.on('warning', onWarning)
    try {
      const adapter = createScriptedAdapter({ turns: [{ steps: [{ reasoning: LONG, text: LONG }] }], delayMs: 1 })
      const controller = new AbortController()
      const seen: number[] = []
      let deltas = 0
      for await (const chunk of adapter.stream(request(controller.signal)) as AsyncIterable<StreamChunk>) {
        if (chunk.type === 'text-delta' || chunk.type === 'reasoning-delta') deltas += 1
        seen.push(getEventListeners(controller.signal, 'abort').length)
      }
      expect(deltas).toBe(80)
      expect(Math.max(...seen)).toBe(0)
      // let a pending process 'warning' event fire before looking
      await new Promise((resolve) => setImmediate(resolve))
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([])
    } finally {
      process.off('warning', onWarning)
    }
  })

  it('an abort during a pause ends the stream with ABORTED', async () => {
    const adapter = createScriptedAdapter({ turns: [{ steps: [{ text: LONG }] }], delayMs: 60_000 })
    const controller = new AbortController()
    const chunks: StreamChunk[] = []
    const reading = (async () => {
      for await (const chunk of adapter.stream(request(controller.signal)) as AsyncIterable<StreamChunk>)
        chunks.push(chunk)
    })()
    // the first delta waits in a pause of a minute; the abort must end it, not the timer
    await new Promise((resolve) => setImmediate(resolve))
    controller.abort()
    await expect(reading).rejects.toMatchObject({ code: 'ABORTED' })
    expect(chunks.map((c) => c.type)).toEqual(['block-start'])
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
  })
})
