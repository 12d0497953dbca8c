/**
 * The bounds of every model call (docs/model-calls.md#bounds), the same as every adapter's: an idle body, a wait for
 * progress that `ping`s, empty deltas and empty `message_delta`s do not restore, the whole call's duration, and the
 * bytes of one response. Each ends the call with `@bridle/llm`'s typed error and the same wording, the partial answer
 * kept in an error turn, the socket closed.
 */
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_STREAM_TOTAL_TIMEOUT_MS,
  ResponseTooLargeError,
  StreamTimeoutError,
  type StreamChunk,
} from '@bridle/llm'
import { realClock } from '@bridle/llm/adapter-kit'
import { afterEach, describe, expect, it } from 'vitest'
import { resolveConfig } from '../src/index.js'
import { PING, answerEvents, messageStart, type MessagesSseItem } from '../src/testing.js'
import { boot, bootAdapter, failureOf, request, run, teardown, type Harness } from './harness.js'

let h: Harness | undefined
afterEach(async () => {
  await teardown(h, { strict: false })
  h = undefined
})

const textDelta = (text: string): MessagesSseItem => ({
  event: 'content_block_delta',
  data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
})
const emptyMessageDelta: MessagesSseItem = { event: 'message_delta', data: { type: 'message_delta', delta: {} } }
/** `message_start`, `ping` and an open text block with `first` in it. */
const opening = (first: string) =>
  answerEvents([{ type: 'text', fragments: [first] }], { cutAfterBlocks: true }).slice(0, 4)

const noProgress = (url: string, ms: number) =>
  `event stream from ${url} sent nothing new for ${ms}ms (keep-alives and empty events do not count)`

describe('defaults', () => {
  it('are the shared ones: 5 min idle, 10 min progress, 30 min total, 128 MiB per response, 8 MiB per line', () => {
    expect(resolveConfig({})).toMatchObject({
      streamIdleTimeoutMs: 300_000,
      streamDataTimeoutMs: 600_000,
      streamTotalTimeoutMs: DEFAULT_STREAM_TOTAL_TIMEOUT_MS,
      maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
      maxLineBytes: 8 * 1024 * 1024,
    })
    expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(128 * 1024 * 1024)
    // an empty YAML value takes the default, as for every size and timeout
    expect(resolveConfig({ maxResponseBytes: null }).maxResponseBytes).toBe(DEFAULT_MAX_RESPONSE_BYTES)
  })
})

describe('a stream that never delivers anything new', () => {
  it.each<[string, MessagesSseItem]>([
    ['pings', PING],
    ['empty text deltas', textDelta('')],
    ['empty message_deltas', emptyMessageDelta],
    ['repeated message_starts', messageStart()],
  ])('%s forever: TIMEOUT after streamDataTimeoutMs, the partial text kept, the socket closed', async (_, item) => {
    h = await boot([{ kind: 'repeat', events: opening('so far'), repeat: item, everyMs: 10 }], {
      streamIdleTimeoutMs: 5000,
      streamDataTimeoutMs: 300,
    })
    const result = await run(h.ctx)
    expect(failureOf(result.finish)).toEqual({ code: 'TIMEOUT', message: noProgress(h.server.url, 300) })
    expect(result.message.content).toEqual([{ type: 'text', text: 'so far' }])
    await h.server.requests[0]!.disconnected
  })

  it('a body that falls silent: TIMEOUT after streamIdleTimeoutMs', async () => {
    h = await boot([{ kind: 'hang', events: opening('so far') }], { streamIdleTimeoutMs: 200 })
    const result = await run(h.ctx)
    expect(failureOf(result.finish)).toEqual({
      code: 'TIMEOUT',
      message: `event stream from ${h.server.url} idle for 200ms`,
    })
    expect(result.message.content).toEqual([{ type: 'text', text: 'so far' }])
  })

  it('headers that never come: TIMEOUT after timeoutMs', async () => {
    h = await boot([{ kind: 'hang' }], { timeoutMs: 200 })
    expect(failureOf((await run(h.ctx)).finish)).toEqual({
      code: 'TIMEOUT',
      message: `request to ${h.server.url} timed out after 200ms`,
    })
  })
})

describe('a stream that never ends', () => {
  it('text forever ends at streamTotalTimeoutMs as an error turn with the text so far', async () => {
    h = await boot([{ kind: 'repeat', events: opening('a'), repeat: textDelta('b'), everyMs: 5 }], {
      streamIdleTimeoutMs: 200,
      streamDataTimeoutMs: 300,
      streamTotalTimeoutMs: 400,
    })
    const result = await run(h.ctx)
    expect(failureOf(result.finish)).toEqual({
      code: 'TIMEOUT',
      message: `model call to ${h.server.url} did not finish within 400ms (streamTotalTimeoutMs)`,
    })
    expect(result.chunks.some((c) => c.type === 'block-end')).toBe(false)
    expect((result.message.content[0] as { text: string }).text).toMatch(/^abb+$/)
    await h.server.requests[0]!.disconnected
  })

  it('the total deadline also bounds a request that never gets its headers', async () => {
    h = await boot([{ kind: 'hang' }], { timeoutMs: 60_000, streamTotalTimeoutMs: 200 })
    expect(failureOf((await run(h.ctx)).finish)).toEqual({
      code: 'TIMEOUT',
      message: `model call to ${h.server.url} did not finish within 200ms (streamTotalTimeoutMs)`,
    })
    await h.server.requests[0]!.disconnected
  })

  it('text forever ends at maxResponseBytes with RESPONSE_TOO_LARGE', async () => {
    h = await boot([{ kind: 'repeat', events: opening('a'), repeat: textDelta('y'.repeat(500)), everyMs: 0 }], {
      maxResponseBytes: 4096,
    })
    const result = await run(h.ctx)
    expect(failureOf(result.finish)).toEqual({
      code: 'RESPONSE_TOO_LARGE',
      message: `event stream from ${h.server.url} passed 4096 bytes without finishing (maxResponseBytes)`,
    })
    expect((result.message.content[0] as { text: string }).text.length).toBeLessThan(4096)
    await h.server.requests[0]!.disconnected
  })

  it('a line longer than maxLineBytes is MALFORMED_RESPONSE', async () => {
    h = await boot([{ kind: 'sse', events: [messageStart(), { raw: `data: ${'z'.repeat(1000)}` }] }], {
      maxLineBytes: 512,
    })
    expect(failureOf((await run(h.ctx)).finish)).toEqual({
      code: 'MALFORMED_RESPONSE',
      message: `event stream from ${h.server.url} sent a line longer than 512 bytes`,
    })
  })
})

describe('the typed errors the adapter throws', () => {
  /** The error `adapter.stream` ends with (the runtime turns it into the finish chunk). */
  async function thrown(adapter: { stream(o: ReturnType<typeof request>): AsyncIterable<StreamChunk> }) {
    try {
      for await (const _ of adapter.stream(request())) {
      }
    } catch (error) {
      return error
    }
    throw new Error('the call ended without an error')
  }

  it('StreamTimeoutError with its bound, ResponseTooLargeError with its cap', async () => {
    const booted = await bootAdapter(
      [
        { kind: 'hang', events: opening('x') },
        { kind: 'repeat', events: opening('x'), repeat: PING, everyMs: 10 },
        { kind: 'repeat', events: opening('x'), repeat: textDelta('y'), everyMs: 5 },
        { kind: 'repeat', events: opening('x'), repeat: textDelta('z'.repeat(4000)), everyMs: 0 },
      ],
      { streamIdleTimeoutMs: 150, streamDataTimeoutMs: 250, streamTotalTimeoutMs: 400, maxResponseBytes: 64 * 1024 },
      realClock,
    )
    h = booted
    const errors = []
    for (let i = 0; i < 4; i++) errors.push(await thrown(booted.adapter))
    expect(errors.slice(0, 3).map((e) => [e instanceof StreamTimeoutError, (e as StreamTimeoutError).bound])).toEqual([
      [true, 'idle'],
      [true, 'data'],
      [true, 'total'],
    ])
    expect(errors[3]).toBeInstanceOf(ResponseTooLargeError)
    expect(errors[3]).toMatchObject({ code: 'RESPONSE_TOO_LARGE', maxBytes: 64 * 1024 })
  })
})
