import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  RequestDigester,
  Session,
  cachePrefixReport,
  reconstructRequest,
  readSectionManifest,
  sectionAt,
  sectionChanges,
  sectionManifest,
  sha256Hex,
  verifyDigests,
  type AnySessionEvent,
  type SystemSectionRecord,
} from '../src/index.js'
import { assistant, user } from './helpers.js'

/** Joins named texts the way the system-prompt renderer does, returning the string and its spans. */
function render(sections: readonly { name: string; text: string; order?: number }[]) {
  let system = ''
  const spans = sections.map(({ name, text, order }) => {
    if (system !== '') system += '\n\n'
    const start = system.length
    system += text
    return { name, ...(order !== undefined ? { order, scope: 'global' as const } : {}), start, end: system.length }
  })
  return { system, spans }
}

/** A log of one turn per system prompt, each header carrying its manifest (or not, for an old-format log). */
function logOf(prompts: readonly { name: string; text: string }[][], withManifest = true): AnySessionEvent[] {
  const s = Session.create('s')
  const digester = new RequestDigester()
  prompts.forEach((sections, index) => {
    const turn = index + 1
    const { system, spans } = render(sections)
    s.append('turn/start', { turn })
    s.append('step/start', { turn, step: 1 })
    s.append('user/message', user(`question ${turn}`), { surfaceOp: 'append' })
    const header = { config: { provider: 'p', model: 'm' }, system }
    s.append('request/header', {
      header,
      reason: turn === 1 ? 'initial' : 'change',
      ...(withManifest ? { sections: sectionManifest(system, spans) } : {}),
    })
    s.append('request/digest', {
      turn,
      step: 1,
      attempt: 1,
      algorithm: 'sha256',
      ...digester.digest({ ...header.config, system, messages: s.deriveMessages() }),
    })
    const chunk = s.append('assistant/chunk', { turn, step: 1, chunk: { type: 'text-delta', index: 0, text: 'ok' } })
    s.append(
      'assistant/message',
      { turn, step: 1, message: assistant('ok') },
      { surfaceOp: 'append', sourceEventSeqs: [chunk.seq] },
    )
    s.append('step/end', { turn, step: 1 })
    s.append('turn/end', { turn, reason: { kind: 'completed' } })
  })
  return [...s.events]
}

const record = (name: string, digest: string): SystemSectionRecord => ({ name, start: 0, end: 0, digest })

describe('section manifest', () => {
  it('sectionManifest digests each span, and readSectionManifest accepts exactly a manifest that fits the string', () => {
    const { system, spans } = render([
      { name: 'a', text: 'Alpha.', order: -1 },
      { name: 'b', text: 'Beta.' },
    ])
    const manifest = sectionManifest(system, spans)
    expect(manifest).toEqual([
      { name: 'a', order: -1, scope: 'global', start: 0, end: 6, digest: sha256Hex('Alpha.') },
      { name: 'b', start: 8, end: 13, digest: sha256Hex('Beta.') },
    ])
    expect(readSectionManifest(system, manifest)).toBe(manifest)
    expect(readSectionManifest(system, undefined)).toBeUndefined()
    expect(readSectionManifest(system, [])).toEqual([])
    // does not fit: another text, out of range, overlapping, malformed entries
    expect(readSectionManifest('Alpha!\n\nBeta.', manifest)).toBeUndefined()
    expect(readSectionManifest(system, [{ ...manifest[0]!, end: 99 }])).toBeUndefined()
    expect(readSectionManifest(system, [manifest[1], manifest[0]])).toBeUndefined()
    expect(readSectionManifest(system, [{ ...manifest[0]!, name: '' }])).toBeUndefined()
    expect(readSectionManifest(system, [{ ...manifest[0]!, scope: 'planet' }])).toBeUndefined()
    expect(readSectionManifest(system, [{ ...manifest[0]!, start: -1 }])).toBeUndefined()
    expect(readSectionManifest(system, 'sections')).toBeUndefined()
    expect(sectionAt(manifest, 7)).toBeUndefined()
    expect(sectionAt(manifest, 8)?.name).toBe('b')
  })

  it('sectionChanges names added, removed, changed and the fewest moved sections', () => {
    const a = record('a', '1')
    const b = record('b', '2')
    const c = record('c', '3')
    const d = record('d', '4')
    expect(sectionChanges([a, b, c], [a, b, c])).toEqual([])
    expect(sectionChanges([a, b], [a, b, c])).toEqual([{ kind: 'added', name: 'c' }])
    expect(sectionChanges([a, b, c], [a, c])).toEqual([{ kind: 'removed', name: 'b' }])
    expect(sectionChanges([a, b], [a, { ...b, digest: 'x' }])).toEqual([{ kind: 'changed', name: 'b' }])
    // a rotation moves one section, not four
    expect(sectionChanges([a, b, c, d], [b, c, d, a])).toEqual([{ kind: 'moved', name: 'a' }])
    expect(sectionChanges([a, b, c], [{ ...c, digest: 'y' }, a, b])).toEqual([
      { kind: 'moved', name: 'c' },
      { kind: 'changed', name: 'c' },
    ])
  })

  it('property: applying the reported changes to the previous names gives the current names', () => {
    const seed = 18_0702
    const names = fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { maxLength: 6 })
    fc.assert(
      fc.property(names, names, (before, after) => {
        const changes = sectionChanges(
          before.map((n) => record(n, n)),
          after.map((n) => record(n, n)),
        )
        const gone = new Set(changes.filter((c) => c.kind === 'removed').map((c) => c.name))
        const placed = new Set(changes.filter((c) => c.kind === 'moved' || c.kind === 'added').map((c) => c.name))
        // what neither moved nor came or went keeps its relative order
        const kept = before.filter((n) => !gone.has(n) && !placed.has(n))
        expect(after.filter((n) => !placed.has(n))).toEqual(kept)
        expect(changes.some((c) => c.kind === 'changed')).toBe(false)
      }),
      { seed, numRuns: 300 },
    )
  })

  it('reconstructRequest returns the manifest, and the cache report names the section added, removed or changed', () => {
    const events = logOf([
      [
        { name: 'identity', text: 'You are Bridle.' },
        { name: 'rules', text: 'Be brief.' },
      ],
      [
        { name: 'identity', text: 'You are Bridle.' },
        { name: 'rules', text: 'Be brief.' },
        { name: 'house', text: 'House rule.' },
      ],
      [
        { name: 'identity', text: 'You are Bridle.' },
        { name: 'house', text: 'House rule.' },
      ],
      [
        { name: 'identity', text: 'You are Bridle!' },
        { name: 'house', text: 'House rule.' },
      ],
    ])
    const rebuilt = reconstructRequest(events, { turn: 2, step: 1 })
    expect(rebuilt.sections?.map((s) => s.name)).toEqual(['identity', 'rules', 'house'])
    const rows = cachePrefixReport(events)
    expect(rows.map((r) => (r.system?.kept === false ? r.system.sections : r.system?.kept))).toEqual([
      undefined,
      [{ kind: 'added', name: 'house' }],
      [{ kind: 'removed', name: 'rules' }],
      [{ kind: 'changed', name: 'identity' }],
    ])
    expect(verifyDigests(events).every((r) => r.ok)).toBe(true)
  })

  it('a log without manifests (written before them) still reconstructs, verifies and reports by line', () => {
    const events = logOf(
      [
        [
          { name: 'identity', text: 'You are Bridle.' },
          { name: 'rules', text: 'Be brief.' },
        ],
        [{ name: 'identity', text: 'You are Bridle.' }],
      ],
      false,
    )
    expect(reconstructRequest(events, { turn: 2, step: 1 }).sections).toBeUndefined()
    expect(verifyDigests(events).map((r) => r.ok)).toEqual([true, true])
    const row = cachePrefixReport(events)[1]!
    expect(row.system).toEqual({ kept: false, firstDifferingLine: 2, previousLine: '', currentLine: '' })
  })

  it('a manifest edited after the fact is ignored, not trusted', () => {
    const events = logOf([[{ name: 'identity', text: 'You are Bridle.' }]])
    const header = events.find((e) => e.type === 'request/header')!
    const data = header.data as { sections: SystemSectionRecord[] }
    const forged = { ...header, data: { ...data, sections: [{ ...data.sections[0]!, end: 3 }] } }
    const edited = events.map((e) => (e === header ? forged : e))
    expect(reconstructRequest(edited, { turn: 1, step: 1 }).sections).toBeUndefined()
  })
})
