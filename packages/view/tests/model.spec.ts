import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { packRequests, unpackRequest } from '../src/embedded.js'
import { systemLineDiff } from '../src/model/diff.js'
import { prefixBytes, promptBytes, utf8Bytes } from '../src/model/prompt-text.js'
import { sectionAt, systemSpans } from '../src/model/sections.js'
import { scriptSafeJson } from '../src/page.js'
import { SessionNotFoundError, ViewSource } from '../src/source.js'
import { openSource, type OpenedSource } from './app.js'
import { makeViewFixture, SCRIPT_PROMPT, type ViewFixture } from './fixture.js'

describe('view model: system spans and the line diff', () => {
  const manifest = (system: string, names: string[]) => {
    let at = 0
    return system.split('\n\n').map((text, i) => {
      const span = { name: names[i]!, start: at, end: at + text.length, digest: '' }
      at += text.length + 2
      return span
    })
  }

  it('names manifest spans and leaves a header without a manifest as unnamed paragraphs', () => {
    const system = 'Persona line.\n\nRules one.\nRules two.'
    const named = systemSpans(system, manifest(system, ['deployment:persona', 'deployment:rules']))
    expect(named.map((s) => s.name)).toEqual(['deployment:persona', 'deployment:rules'])
    expect(sectionAt(named, system.indexOf('two'))).toBe('deployment:rules')
    const unnamed = systemSpans(system, undefined)
    expect(unnamed.map((s) => system.slice(s.start, s.end))).toEqual(['Persona line.', 'Rules one.\nRules two.'])
    expect(unnamed.every((s) => s.name === undefined)).toBe(true)
  })

  it('tags each changed line with the section it belongs to, on its own side', () => {
    const before = 'Persona line.\n\nRules one.\nRules two.'
    const after = 'Persona line.\n\nRules one.\nRules 2.\n\nNew tail.'
    const lines = systemLineDiff(
      before,
      after,
      systemSpans(before, manifest(before, ['persona', 'rules'])),
      systemSpans(after, manifest(after, ['persona', 'rules', 'tail'])),
    )
    const changed = lines.filter((l) => l.kind === 'added' || l.kind === 'removed')
    expect(changed).toContainEqual({ kind: 'removed', text: 'Rules two.', section: 'rules' })
    expect(changed).toContainEqual({ kind: 'added', text: 'Rules 2.', section: 'rules' })
    expect(changed).toContainEqual({ kind: 'added', text: 'New tail.', section: 'tail' })
    expect(lines.some((l) => l.kind === 'same' && l.text === 'Rules one.')).toBe(true)
  })
})

describe('view model: page data and addresses', () => {
  it('embeds any JSON so that no value can close its <script> element, and parses back unchanged', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string(), (value, text) => {
        const wrapped = { value, text: `${text}</script><!--\u2028` }
        const safe = scriptSafeJson(wrapped)
        expect(safe).not.toMatch(/[<>&\u2028\u2029]/)
        expect(JSON.parse(safe)).toEqual(JSON.parse(JSON.stringify(wrapped)))
      }),
    )
  })

  it('counts the UTF-8 bytes of any prefix of a prompt as the joined text has them, from per-part counts', () => {
    const text = fc.string({ unit: 'binary', maxLength: 12 })
    fc.assert(
      fc.property(text, text, fc.array(text, { maxLength: 5 }), fc.nat(), (system, tools, bodies, at) => {
        const parts = { system, tools: `[${tools}`, messages: bodies.map((b) => `{${b}`) }
        const joined = parts.system + parts.tools + parts.messages.join('')
        const prompt = {
          ...parts,
          chars: joined.length,
          parts: { tools: { text: parts.tools }, messages: parts.messages.map((text) => ({ text })) },
        }
        const chars = at % (joined.length + 1)
        expect(prefixBytes(prompt, chars)).toBe(utf8Bytes(joined.slice(0, chars)))
        expect(promptBytes(prompt)).toBe(utf8Bytes(joined))
      }),
    )
  })
})

describe('view model: a real session through ViewSource', () => {
  let fixture: ViewFixture
  let opened: OpenedSource
  let source: ViewSource

  beforeAll(async () => {
    fixture = await makeViewFixture()
    opened = await openSource(fixture.app)
    source = opened.source
  })
  afterAll(() => opened?.close())

  it('lists sessions newest first, with turns, requests and whether every request verifies', async () => {
    const rows = await source.sessions()
    expect(rows.map((r) => r.id)).toEqual([fixture.tampered, fixture.id])
    const [tampered, two] = rows
    expect(two).toMatchObject({ turns: 2, requests: 3, verify: 'ok' })
    expect(tampered).toMatchObject({ turns: 1, verify: 'failed' })
    expect(two!.lastActivity).toBeGreaterThanOrEqual(two!.createdAt)
  })

  it('builds the timeline: turns, steps, model, verification, stop reason and tool calls with results', async () => {
    const view = await source.session(fixture.id)
    expect(view.turns.map((t) => t.steps.length)).toEqual([2, 1])
    const [call, answer] = view.turns[0]!.steps
    expect(call!.toolCalls).toHaveLength(1)
    expect(call!.toolCalls[0]).toMatchObject({ name: 'read_file' })
    expect(call!.toolCalls[0]!.result?.text).toContain('acme-invoice-parser')
    expect(call!.requests[0]).toMatchObject({ model: 'scripted-demo', verify: { ok: true }, stopReason: 'tool-calls' })
    expect(answer!.requests[0]!.stopReason).toBe('stop')
    expect(call!.entered.some((m) => m.text === SCRIPT_PROMPT)).toBe(true)
    await expect(source.session('no-such-session')).rejects.toThrow(SessionNotFoundError)
  })

  it('names the section that broke the cache prefix when the persona changed between turns', async () => {
    const view = await source.session(fixture.id)
    const firstOfTurn2 = view.turns[1]!.steps[0]!.requests[0]!
    expect(firstOfTurn2.breakCause).toMatch(/^system: section \S*persona\S* changed/)
    expect(firstOfTurn2.prefixShare).toBeLessThan(1)
    const request = (await source.request(fixture.id, firstOfTurn2.seq))!
    expect(request.system.named).toBe(true)
    expect(request.system.spans.some((s) => s.name?.includes('persona'))).toBe(true)
    const diff = request.diff!
    expect(diff.system.kept).toBe(false)
    expect(
      diff.system.lines.some((l) => l.kind === 'added' && l.text.includes('briefly') && l.section?.includes('persona')),
    ).toBe(true)
    expect(diff.prefix.break).toMatchObject({ part: 'system', cause: firstOfTurn2.breakCause })
    expect(diff.prefix.keptBytes).toBeLessThan(diff.prefix.totalBytes)

    // within a turn the prompt only grows: the previous request is a prefix of the next one
    const second = view.turns[0]!.steps[1]!.requests[0]!
    expect(second.breakCause).toBeUndefined()
    const grown = (await source.request(fixture.id, second.seq))!.diff!
    expect(grown.prefix.break).toBeUndefined()
    expect(grown.messages.appended.length).toBeGreaterThan(0)
  })

  it('a file stores each message once, and its request views read back as the server shows them', async () => {
    const { session, requests: views } = await source.wholeSession(fixture.id)
    expect(session).toEqual(await new ViewSource(opened.persistence).session(fixture.id))
    const packed = packRequests(views)
    const data = { session, ...packed, generatedAt: 0 }
    const sent = Object.values(views).reduce((n, v) => n + v.messages.length, 0)
    expect(packed.messages.length).toBeLessThan(sent)
    // each message from each event once: a request repeats the history before it, it does not copy it
    const keys = packed.messages.map((m) => JSON.stringify(m))
    expect(new Set(keys).size).toBe(keys.length)
    for (const [seq, stored] of Object.entries(packed.requests)) {
      const served = await new ViewSource(opened.persistence).request(fixture.id, Number(seq))
      expect(unpackRequest(data, stored)).toEqual(served)
      expect(views[seq]).toEqual(served)
    }
    expect(() =>
      unpackRequest(data, { ...packed.requests[Object.keys(packed.requests)[0]!]!, messages: [999] }),
    ).toThrow(/this file is damaged: request \d+ names message 999/)
  })

  it('marks the tampered request ✗ and says which part does not match', async () => {
    const view = await source.session(fixture.tampered)
    const rows = view.turns.flatMap((t) => t.steps.flatMap((s) => s.requests))
    expect(rows.every((r) => r.verify.ok === false)).toBe(true)
    expect(rows[0]!.verify.mismatched).toContain('messages')
  })
})
