import { LlmError } from '../src/index.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { readSseEvents, type SseEvent } from '../src/adapter-kit.js'

/** A body that delivers exactly the given byte slices, one per read. */
function bodyOf(slices: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = slices[i++]
      if (next === undefined) controller.close()
      else controller.enqueue(next)
    },
  })
}

function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
  const out: Uint8Array[] = []
  let at = 0
  for (const p of [...points, bytes.length]) {
    if (p > at) out.push(bytes.subarray(at, p))
    at = Math.max(at, p)
  }
  return out
}

async function collect(body: ReadableStream<Uint8Array>, idleTimeoutMs = 5000): Promise<SseEvent[]> {
  const events: SseEvent[] = []
  for await (const e of readSseEvents(body, { idleTimeoutMs, baseURL: 'http://mock' })) events.push(e)
  return events
}

const enc = (s: string) => new TextEncoder().encode(s)

describe('SSE reader', () => {
  it('frames LF, CRLF and CR endings, joins multi-line data, drops comments and blank data, strips a BOM', async () => {
    const text =
      '\uFEFFdata: a\n\n: keep-alive\r\n\r\ndata: b1\r\ndata: b2\r\n\r\nevent: error\rdata: c\r\rdata:\n\ndata:   \n\n'
    expect(await collect(bodyOf([enc(text)]))).toEqual([
      { data: 'a' },
      { data: 'b1\nb2' },
      { event: 'error', data: 'c' },
    ])
  })

  it('drops an event that is never terminated by a blank line', async () => {
    expect(await collect(bodyOf([enc('data: x\n\ndata: [DONE]')]))).toEqual([{ data: 'x' }])
    expect(await collect(bodyOf([enc('data: x\n\ndata: [DONE]\n')]))).toEqual([{ data: 'x' }])
    expect(await collect(bodyOf([]))).toEqual([])
  })

  it('property: any byte split yields the same events, multi-byte characters included', async () => {
    const payloads = fc.array(
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }).filter((s) => s.trim() !== '' && !/[\r\n]/.test(s)),
      {
        minLength: 1,
        maxLength: 5,
      },
    )
    await fc.assert(
      fc.asyncProperty(payloads, fc.array(fc.nat(), { maxLength: 20 }), fc.boolean(), async (datas, cuts, crlf) => {
        const nl = crlf ? '\r\n' : '\n'
        const bytes = enc(datas.map((d) => `data: ${d}${nl}${nl}`).join(': ping' + nl + nl))
        const events = await collect(bodyOf(split(bytes, cuts)))
        expect(events.map((e) => e.data)).toEqual(datas)
      }),
      { numRuns: 200 },
    )
  })

  it('idle watchdog: a read pending longer than the limit throws TIMEOUT; bytes (comments too) re-arm it', async () => {
    const stalled = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(enc(': keep-alive\n\n'))
      },
    })
    const error = await collect(stalled, 50).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(LlmError)
    expect((error as LlmError).code).toBe('TIMEOUT')
    expect((error as LlmError).message).toBe('event stream from http://mock idle for 50ms')
  })

  it('comments keep the watchdog quiet even when the whole stream outlasts the limit', async () => {
    let sent = 0
    const chatty = new ReadableStream<Uint8Array>({
      async pull(controller) {
        await new Promise((r) => setTimeout(r, 10))
        if (sent++ < 40) controller.enqueue(enc(': keep-alive\n\n'))
        else {
          controller.enqueue(enc('data: done\n\n'))
          controller.close()
        }
      },
    })
    expect(await collect(chatty, 300)).toEqual([{ data: 'done' }])
  })

  it('a caller abort stops a pending read with ABORTED', async () => {
    const controller = new AbortController()
    const stalled = new ReadableStream<Uint8Array>({})
    const pending = (async () => {
      for await (const _ of readSseEvents(stalled, { idleTimeoutMs: 60_000, baseURL: 'x', signal: controller.signal }))
        void _
    })()
    controller.abort()
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED', message: 'request aborted' })
  })
})
