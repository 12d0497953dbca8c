import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { DevSession } from './dev-session.js'
import { bridle, DEMO_YAML, makeApp, sessionIdOf } from './helpers.js'

/** A plugin whose runtime context counts the calls of its provider: a side effect that steps must own. */
const TICK = `let ticks = 0
export default {
  name: 'tick',
  inject: ['systemPrompt'],
  apply(ctx) {
    ctx.systemPrompt.context({ name: 'tick', order: 90, text: () => 'tick: ' + ++ticks })
  },
}
`

/** The tick counts the runtime-context snapshots of a session showed, in order. */
function ticksOf(app: string, id: string): number[] {
  return readFileSync(join(app, 'sessions', `${id}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line))
    .filter((event) => event.type === 'user/message' && event.data.source?.form === 'snapshot')
    .map((event) => Number(/tick: (\d+)/.exec(event.data.content[0].text)?.[1]))
}

describe('dry assemblies do not run context providers', () => {
  let dev: DevSession | undefined
  afterEach(() => void dev?.child.kill())

  it('bridle run: a counting context provider sees exactly one call per step (none from the check at start)', async () => {
    const app = makeApp(DEMO_YAML.replace('plugins:\n', 'plugins:\n  - path: ./lib/tick.mjs\n'))
    mkdirSync(join(app, 'lib'))
    writeFileSync(join(app, 'lib', 'tick.mjs'), TICK)
    const out = await bridle(['run', 'What is the package name of this project?'], app)
    expect(out.code).toBe(0)
    // the scripted demo turn takes two steps (read_file, then the answer): one snapshot per step
    expect(ticksOf(app, sessionIdOf(out.stderr))).toEqual([1, 2])
  })

  it('bridle dev: neither the start nor a reload calls the provider; the reloaded plugin counts from its first step', async () => {
    const app = makeApp(DEMO_YAML)
    const file = join(app, 'plugins', 'tick.mjs')
    writeFileSync(file, TICK)
    dev = new DevSession(app)
    await dev.waitFor(/one prompt per line/, 0)
    await dev.prompt('What is the package name of this project?')
    const reloaded = dev.waitFor(/bridle dev: reloaded plugins\/tick\.mjs/)
    writeFileSync(file, `${TICK}// edited\n`)
    await reloaded
    await dev.prompt('What is the package name of this project?')
    expect(await dev.end()).toBe(0)
    expect(ticksOf(app, sessionIdOf(dev.stderr))).toEqual([1, 2, 1, 2])
  })
})
