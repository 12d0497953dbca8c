import { describe, expect, it } from 'vitest'
import { cachePrefixReport, verifyDigests } from '@bridle/session'
import { bootApp, captureWarnings, countTokens, filler, turn } from './harness.js'

const warnings = captureWarnings()

describe('automatic compaction', () => {
  it('compacts before the step whose projected input crosses the threshold, then sends the request', async () => {
    const app = bootApp({ contextWindow: 2000, compaction: { threshold: 0.8, lowWater: 0.4, summaryMaxTokens: 100 } })
    const agent = app.agent()
    for (let i = 1; i <= 12; i++) {
      app.answers.push((r) => [
        { type: 'block-start', index: 0, blockType: 'text' },
        { type: 'text-delta', index: 0, text: filler(`answer ${i}`, 400) },
        { type: 'block-end', index: 0, block: { type: 'text', text: filler(`answer ${i}`, 400) } },
        { type: 'usage', usage: { inputTokens: countTokens(r), outputTokens: 100 } },
        { type: 'finish', reason: { kind: 'stop' } },
      ])
      await turn(agent, filler(`prompt ${i}`, 400))
    }
    const summaries = app.requests.filter((r) => r.purpose === 'compaction')
    expect(summaries.length).toBeGreaterThan(0)
    for (const r of app.requests) if (r.purpose !== 'compaction') expect(countTokens(r)).toBeLessThanOrEqual(1600)
    const verified = verifyDigests(agent.session.events)
    expect(verified.every((v) => v.ok)).toBe(true)
    expect(verified.filter((v) => v.purpose === 'compaction').length).toBe(summaries.length)
    const report = cachePrefixReport(agent.session.events)
    const breaks = report.filter((r) => r.messages?.kept === false && r.purpose === undefined)
    expect(breaks.length).toBe(summaries.length)
    for (const b of breaks) {
      expect(b.messages).toMatchObject({ kept: false, cause: { kind: 'replace', compaction: { reason: 'threshold' } } })
    }
    const first = agent.session.events.findIndex((e) => e.type === 'request/compaction')
    console.log(agent.session.events.slice(first - 8, first + 16).map((e) => `${e.seq} ${e.type} ${JSON.stringify(e.surfaceOp ?? '')} ${JSON.stringify(e.sourceEventSeqs ?? '')} ${JSON.stringify(e.data).slice(0, 150)}`).join('\n'))
    console.log(JSON.stringify(report, null, 1).slice(0, 3000))
    expect(warnings).toEqual([])
  })
})
