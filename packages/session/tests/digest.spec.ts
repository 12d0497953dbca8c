import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { extendHistory, type Message, type ToolSchema } from '@bridle/llm'
import {
  EMPTY_CHAIN,
  RequestDigester,
  Session,
  cachePrefixReport,
  canonicalJson,
  requestDigestParts,
  sha256Hex,
  undigestedSteps,
  verifyDigests,
  type AnySessionEvent,
  type EpochHeader,
} from '../src/index.js'
import { assistant, hashedMessages, user } from './helpers.js'

const tool = (name: string, extra = ''): ToolSchema => ({
  name,
  description: `${name}${extra}`,
  parameters: { type: 'object' },
})

describe('canonicalJson and sha256Hex', () => {
  it('sorts keys by UTF-16 code unit at every level, without whitespace', () => {
    expect(canonicalJson({ b: 1, a: [{ d: true, c: null }], A: 'x' })).toBe('{"A":"x","a":[{"c":null,"d":true}],"b":1}')
    // U+FF5E (one code unit) sorts before U+1F600 (surrogate pair starting 0xD83D)? No: 0xD83D < 0xFF5E.
    expect(canonicalJson({ '\uff5e': 1, '\u{1f600}': 2, é: 3 })).toBe('{"é":3,"\u{1f600}":2,"\uff5e":1}')
    expect(canonicalJson([1e21, 0.1, -5, 'q"\n'])).toBe('[1e+21,0.1,-5,"q\\"\\n"]')
    expect(canonicalJson('x')).toBe('"x"')
    expect(() => canonicalJson({ f: undefined })).toThrow('canonicalJson: undefined is not a JSON value')
  })

  it('property: parses back to the same value, and key order never matters', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value)
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)))
        const reversed = JSON.parse(JSON.stringify(value), (_k, v) =>
          v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v,
        )
        expect(canonicalJson(reversed)).toBe(text)
      }),
    )
  })

  it('the recursive writer and the iterative one for deep values agree (fast-check); 100,000 levels do not overflow', () => {
    // 300 levels of arrays push any value past the recursive writer's depth limit, onto the iterative writer.
    const wrap = (value: unknown, levels: number) => {
      let out = value
      for (let i = 0; i < levels; i++) out = [out]
      return out
    }
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(wrap(value, 300))).toBe('['.repeat(300) + canonicalJson(value) + ']'.repeat(300))
      }),
      { seed: 160_019, numRuns: 100 },
    )
    let deep: unknown = { z: 1, a: null }
    for (let i = 0; i < 100_000; i++) deep = { next: deep }
    expect(canonicalJson(deep)).toBe('{"next":'.repeat(100_000) + '{"a":null,"z":1}' + '}'.repeat(100_000))
  })

  it('sha256Hex is lowercase hex of UTF-8 bytes', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
    expect(EMPTY_CHAIN).toBe(sha256Hex(''))
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
    expect(sha256Hex('\u00e9')).toBe(sha256Hex(Buffer.from([0xc3, 0xa9]).toString('utf8')))
  })

  it('request parts follow the formulas', () => {
    const m1 = user('a')
    const m2 = user('b')
    const request = { provider: 'p', model: 'm', temperature: 0, system: 'S', tools: [tool('t')], messages: [m1, m2] }
    const parts = requestDigestParts(request)
    const config = sha256Hex(canonicalJson({ provider: 'p', model: 'm', temperature: 0 }))
    const chain1 = sha256Hex(EMPTY_CHAIN + sha256Hex(canonicalJson(m1)))
    const chain2 = sha256Hex(chain1 + sha256Hex(canonicalJson(m2)))
    expect(parts).toEqual({
      config,
      system: sha256Hex('S'),
      tools: sha256Hex(canonicalJson([tool('t')])),
      messages: { count: 2, chain: chain2 },
      request: sha256Hex(config + sha256Hex('S') + sha256Hex(canonicalJson([tool('t')])) + chain2 + ':2'),
    })
    expect(requestDigestParts({ provider: 'p', model: 'm', messages: [] })).toMatchObject({
      system: sha256Hex(''),
      tools: sha256Hex('[]'),
      messages: { count: 0, chain: EMPTY_CHAIN },
    })
  })
})

describe('RequestDigester (incremental live path)', () => {
  it('matches the from-scratch digest and hashes each message once, recomputing after a replace from the first change', () => {
    const s = Session.create('s')
    const digester = new RequestDigester()
    const counted = hashedMessages()
    const base = { provider: 'p', model: 'm', system: 'S', tools: [tool('a')] }
    for (let i = 0; i < 20; i++) {
      s.append('user/message', user(`u${i}`), { surfaceOp: 'append' })
      const request = { ...base, messages: s.deriveMessages() }
      expect(digester.digest({ ...request, messages: counted.wrap(request.messages) })).toEqual(
        requestDigestParts(request),
      )
    }
    expect(counted.hashed()).toBe(20)
    s.append('user/message', user('checkpoint'), {
      surfaceOp: { op: 'replace', start: 0, end: 9 },
      sourceEventSeqs: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    })
    const request = { ...base, system: 'S2', messages: s.deriveMessages() }
    expect(digester.digest({ ...request, messages: counted.wrap(request.messages) })).toEqual(
      requestDigestParts(request),
    )
    expect(counted.hashed()).toBe(21)
  })

  it('reads no earlier message when histories were derived in between (a chain of extensions)', () => {
    const digester = new RequestDigester()
    const base = { provider: 'p', model: 'm', system: 'S', tools: [tool('a')] }
    // The first history's slots count their reads once it is built.
    let reads = 0
    const slots: Message[] = []
    for (let i = 0; i < 50; i++) {
      const message = user(`u${i}`)
      Object.defineProperty(slots, i, { enumerable: true, get: () => (reads++, message) })
    }
    const first = Object.freeze(slots)
    digester.digest({ ...base, messages: first })
    // Another reader derives a history after the first append; the step's history extends that one.
    const between = extendHistory(first, [assistant('a0')])
    const next = extendHistory(between, [user('u50')])
    reads = 0
    expect(digester.digest({ ...base, messages: next })).toEqual(requestDigestParts({ ...base, messages: next }))
    expect(reads).toBe(0)
  })
})

/** A miniature of the agent loop's request path: header, digest, answer — all through the session log. */
function step(
  s: Session,
  digester: RequestDigester,
  turn: number,
  stepNo: number,
  header: EpochHeader,
  prompt?: string,
) {
  s.append('step/start', { turn, step: stepNo })
  if (prompt !== undefined) s.append('user/message', user(prompt), { surfaceOp: 'append' })
  const folded = s.requestHeader()
  if (folded === undefined) s.append('request/header', { header, reason: 'initial' })
  else if (JSON.stringify(folded) !== JSON.stringify(header)) s.append('request/header', { header, reason: 'change' })
  const request = {
    ...header.config,
    ...(header.system ? { system: header.system } : {}),
    ...(header.tools?.length ? { tools: header.tools } : {}),
    messages: s.deriveMessages(),
  }
  s.append('request/digest', { turn, step: stepNo, attempt: 1, algorithm: 'sha256', ...digester.digest(request) })
  const chunk = s.append('assistant/chunk', {
    turn,
    step: stepNo,
    chunk: { type: 'text-delta', index: 0, text: `answer ${turn}.${stepNo}` },
  })
  s.append(
    'assistant/message',
    {
      turn,
      step: stepNo,
      message: assistant(`answer ${turn}.${stepNo}`),
      usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: turn * 100 },
    },
    { surfaceOp: 'append', sourceEventSeqs: [chunk.seq] },
  )
  s.append('step/end', { turn, step: stepNo })
}

function recorded() {
  const s = Session.create('s')
  const digester = new RequestDigester()
  const h1: EpochHeader = {
    config: { provider: 'p', model: 'm' },
    system: 'You are Bridle.\nBe brief.',
    tools: [tool('read_file')],
  }
  s.append('turn/start', { turn: 1 })
  step(s, digester, 1, 1, h1, 'first')
  step(s, digester, 1, 2, h1)
  s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
  s.append('turn/start', { turn: 2 })
  const h2: EpochHeader = { ...h1, system: 'You are Bridle.\nBe thorough.' }
  step(s, digester, 2, 1, h2, 'second')
  s.append('turn/end', { turn: 2, reason: { kind: 'completed' } })
  const nodes = s.surface.nodes
  s.append('user/message', user('summary of turn 1'), {
    surfaceOp: { op: 'replace', start: nodes[0]!, end: nodes[2]! },
    sourceEventSeqs: nodes.slice(0, 3),
  })
  s.append('turn/start', { turn: 3 })
  const h3: EpochHeader = { ...h2, tools: [tool('read_file'), tool('write_file')] }
  step(s, digester, 3, 1, h3, 'third')
  s.append('turn/end', { turn: 3, reason: { kind: 'completed' } })
  return s
}

describe('verifyDigests', () => {
  it('a recorded session verifies clean, step by step', () => {
    const s = recorded()
    const results = verifyDigests(s.events)
    expect(results.map((r) => [r.turn, r.step, r.attempt, r.ok])).toEqual([
      [1, 1, 1, true],
      [1, 2, 1, true],
      [2, 1, 1, true],
      [3, 1, 1, true],
    ])
    expect(results.every((r) => r.mismatched.length === 0)).toBe(true)
    expect(undigestedSteps(s.events)).toEqual([])
  })

  const stored = () => JSON.parse(JSON.stringify(recorded().events)) as AnySessionEvent[]
  const failing = (events: AnySessionEvent[]) =>
    verifyDigests(events)
      .filter((r) => !r.ok)
      .map((r) => [r.turn, r.step, ...r.mismatched])

  it('editing one message fails that step and every later step that contains it, naming messages', () => {
    const events = stored()
    const prompt = events.find((e) => e.type === 'user/message')! as { data: { content: { text: string }[] } }
    prompt.data.content[0]!.text = 'firsT'
    // the prompt is compacted away before turn 3
    expect(failing(events)).toEqual([
      [1, 1, 'messages', 'request'],
      [1, 2, 'messages', 'request'],
      [2, 1, 'messages', 'request'],
    ])
  })

  it('editing the system string or a tool schema fails exactly the steps that used it', () => {
    const events = stored()
    const headers = events.filter((e) => e.type === 'request/header') as {
      data: { header: { system: string; tools: ToolSchema[] } }
    }[]
    headers[1]!.data.header.system += ' '
    expect(failing(events)).toEqual([[2, 1, 'system', 'request']])
    const again = stored()
    const h = again.filter((e) => e.type === 'request/header') as {
      data: { header: { tools: { description: string }[] } }
    }[]
    h[0]!.data.header.tools[0]!.description = 'x'
    expect(failing(again)).toEqual([
      [1, 1, 'tools', 'request'],
      [1, 2, 'tools', 'request'],
    ])
  })

  it('a digest whose request cannot be rebuilt fails every part with the reason; old logs report undigested steps', () => {
    const events: AnySessionEvent[] = [
      { type: 'turn/start', seq: 0, time: 0, data: { turn: 1 } },
      { type: 'step/start', seq: 1, time: 0, data: { turn: 1, step: 1 } },
      {
        type: 'request/digest',
        seq: 2,
        time: 0,
        data: {
          turn: 1,
          step: 1,
          attempt: 1,
          algorithm: 'sha256',
          request: 'x',
          config: 'x',
          system: 'x',
          tools: 'x',
          messages: { count: 0, chain: 'x' },
        },
      },
      { type: 'step/start', seq: 3, time: 0, data: { turn: 1, step: 2 } },
    ]
    const [result] = verifyDigests(events)
    expect(result).toMatchObject({
      ok: false,
      mismatched: ['config', 'system', 'tools', 'messages', 'request'],
      error: 'reconstructRequest: no request/header precedes turn 1 step 1',
    })
    expect(undigestedSteps(events)).toEqual([{ turn: 1, step: 2, stepStartSeq: 3 }])
  })
})

describe('cachePrefixReport', () => {
  it('reports a tool whose description changed as changed, not moved, and a reordered one as moved', () => {
    const s = Session.create('s')
    const digester = new RequestDigester()
    const base: EpochHeader = { config: { provider: 'p', model: 'm' }, tools: [tool('add_note'), tool('read_file')] }
    s.append('turn/start', { turn: 1 })
    step(s, digester, 1, 1, base, 'first')
    const described = { ...tool('add_note'), description: 'Adds a note to the list.' }
    step(s, digester, 1, 2, { ...base, tools: [described, tool('read_file')] })
    step(s, digester, 1, 3, { ...base, tools: [tool('read_file'), described] })
    const rows = cachePrefixReport(s.events)
    expect(rows[1]!.tools).toEqual({ kept: false, added: [], removed: [], moved: [], changed: ['add_note'] })
    expect(rows[2]!.tools).toEqual({
      kept: false,
      added: [],
      removed: [],
      moved: ['read_file', 'add_note'],
      changed: [],
    })
  })

  it('names the hot-reloaded system line, the compaction and the added tool as the only breaks', () => {
    const s = recorded()
    const rows = cachePrefixReport(s.events)
    expect(rows).toHaveLength(4)
    expect(rows[0]).toMatchObject({ turn: 1, step: 1, cachedInputTokens: 100 })
    expect(rows[0]!.system).toBeUndefined()
    expect(rows[1]).toMatchObject({
      system: { kept: true },
      tools: { kept: true },
      messages: { kept: true },
      prefixKept: { messages: 1 },
    })
    expect(rows[2]).toMatchObject({
      system: { kept: false, firstDifferingLine: 2, previousLine: 'Be brief.', currentLine: 'Be thorough.' },
      tools: { kept: true },
      messages: { kept: true },
      prefixKept: { messages: 0, chars: 'You are Bridle.\nBe '.length },
      cachedInputTokens: 200,
    })
    const compaction = s.events.find((e) => e.type === 'user/message' && typeof e.surfaceOp === 'object')!
    expect(rows[3]).toMatchObject({
      system: { kept: true },
      tools: { kept: false, added: ['write_file'], removed: [], moved: [], changed: [] },
      messages: { kept: false, firstDifferingPosition: 0, cause: { kind: 'replace', seq: compaction.seq } },
      prefixKept: { messages: 0 },
      cachedInputTokens: 300,
    })
  })
})

describe('verifyDigests: retried attempts', () => {
  it('an attempt > 1 is rebuilt over the whole prefix, after the failed attempt’s output', () => {
    const s = Session.create('s')
    const digester = new RequestDigester()
    const h: EpochHeader = { config: { provider: 'p', model: 'm' }, system: 'S' }
    s.append('turn/start', { turn: 1 })
    s.append('step/start', { turn: 1, step: 1 })
    s.append('user/message', user('go'), { surfaceOp: 'append' })
    s.append('request/header', { header: h, reason: 'initial' })
    const request = () => ({ ...h.config, system: 'S', messages: s.deriveMessages() })
    s.append('request/digest', { turn: 1, step: 1, attempt: 1, algorithm: 'sha256', ...digester.digest(request()) })
    s.append('assistant/chunk', {
      turn: 1,
      step: 1,
      chunk: { type: 'finish', reason: { kind: 'error', failure: { message: 'busy', code: 'RATE_LIMIT' } } },
    })
    s.append('request/digest', { turn: 1, step: 1, attempt: 2, algorithm: 'sha256', ...digester.digest(request()) })
    s.append(
      'assistant/message',
      { turn: 1, step: 1, message: assistant('done') },
      { surfaceOp: 'append', sourceEventSeqs: [] },
    )
    expect(verifyDigests(s.events).map((r) => [r.attempt, r.ok])).toEqual([
      [1, true],
      [2, true],
    ])
    // a digest claiming a different history for the retry is caught
    const tampered = JSON.parse(JSON.stringify(s.events)) as AnySessionEvent[]
    ;(tampered[6]!.data as { messages: { count: number } }).messages.count = 2
    expect(verifyDigests(tampered).map((r) => r.mismatched)).toEqual([[], ['messages']])
  })
})

describe('model-view digests', () => {
  it('ignore message ids and sources, and change with anything the model is shown', async () => {
    const { createUserMessage, createAssistantMessage } = await import('@bridle/llm')
    const { modelViewDigests, requestDigestParts } = await import('../src/index.js')
    const request = (text: string) => ({
      provider: 'p',
      model: 'm',
      system: 'sys',
      messages: [
        createUserMessage(text),
        createAssistantMessage({ content: [{ type: 'text', text: 'ok' }], source: { provider: 'p', model: 'm' } }),
      ],
    })
    const [a, b] = [request('hi'), request('hi')]
    expect(a.messages[0]!.id).not.toBe(b.messages[0]!.id)
    expect(modelViewDigests(a)).toEqual(modelViewDigests(b))
    expect(requestDigestParts(a).request).not.toBe(requestDigestParts(b).request)
    const withSource = { ...a, messages: [createUserMessage('hi', { kind: 'plugin', plugin: 'x' }), a.messages[1]!] }
    expect(modelViewDigests(withSource)).toEqual(modelViewDigests(a))
    const changed = modelViewDigests(request('hello'))
    expect(changed.messages).not.toBe(modelViewDigests(a).messages)
    expect(changed.request).not.toBe(modelViewDigests(a).request)
    expect(modelViewDigests({ ...a, system: 'other' }).system).not.toBe(modelViewDigests(a).system)
  })
})
