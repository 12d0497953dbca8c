import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Session } from '@bridle/session'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { eventLine, headerLine } from '../src/index.js'
import { nodeFs, type FsLayer } from '../src/fs-layer.js'
import { buildLog } from './fixtures/script.js'
import { makeApp, scriptedAppends } from './helpers.js'

const log = buildLog(scriptedAppends(2))
const header = { version: 0 as const, id: 's1', createdAt: 1000, cwd: '/work' }

function writeLog(root: string, lines: string[]): void {
  mkdirSync(root, { recursive: true })
  writeFileSync(join(root, 's1.jsonl'), headerLine(header) + lines.join(''))
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('a resume validates the stored log once', () => {
  it('prepare builds one session from the log: the validated one is the one handed out', async () => {
    const { root, persistence } = makeApp()
    writeLog(root, log.map(eventLine))
    const restores = vi.spyOn(Session, 'fromRestore')
    const preparation = await persistence.prepare('s1')
    expect(restores).toHaveBeenCalledTimes(1)
    expect(restores.mock.results[0]!.value).toBe(preparation.session)
    expect(preparation.session.events.slice(0, log.length)).toEqual(log)
    // the store's header, built from the stored one
    expect(preparation.session.header).toEqual(header)
    preparation[Symbol.dispose]()
  })

  it('inspect and load validate once too', async () => {
    const { root, persistence } = makeApp()
    writeLog(root, log.map(eventLine))
    const restores = vi.spyOn(Session, 'fromRestore')
    await persistence.inspect('s1')
    expect(restores).toHaveBeenCalledTimes(1)
    await persistence.load('s1')
    expect(restores).toHaveBeenCalledTimes(2)
  })

  it('a log that needs repair is validated before and after the repair, and the session comes from the re-read', async () => {
    const { root, persistence } = makeApp()
    const open = log.findIndex((e) => e.type === 'turn/end')
    writeLog(root, log.slice(0, open).map(eventLine))
    const restores = vi.spyOn(Session, 'fromRestore')
    const preparation = await persistence.prepare('s1')
    expect(restores).toHaveBeenCalledTimes(2)
    expect(restores.mock.results[1]!.value).toBe(preparation.session)
    expect(preparation.session.events.slice(0, open)).toEqual(log.slice(0, open))
    expect(preparation.session.events[open]!.type).not.toBe('session/end-seed') // the closers come first
    preparation[Symbol.dispose]()
  })

  it('when the id went live during the load, prepare still refuses with the store error, unwrapped', async () => {
    let live: Session | undefined
    // a session with the same id goes live while the stored log is being read
    const racing: FsLayer = {
      ...nodeFs,
      async readFile(path) {
        const bytes = await nodeFs.readFile(path)
        if (live === undefined) {
          live = app.ctx.sessions.prepare('s1')
          app.ctx.sessions.enter(live)
        }
        return bytes
      },
    }
    const app = makeApp({}, racing)
    writeLog(app.root, log.map(eventLine))
    const error = await app.persistence.prepare('s1').then(
      () => undefined,
      (e: unknown) => e as Error,
    )
    expect(error?.message).toBe('session "s1" already exists')
    expect(app.ctx.sessions.get('s1')).toBe(live)
  })
})
