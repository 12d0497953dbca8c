import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { nodeFs, type FsLayer } from '../src/fs-layer.js'
import { eventLine, headerLine } from '../src/line-format.js'
import { LogReader } from '../src/reader.js'
import { commitRepair } from '../src/repair.js'
import { buildLog, scriptedAppends } from './fixtures/script.js'
import { tempRoot } from './helpers.js'

const log = buildLog(scriptedAppends(1))
const lines = log.map(eventLine)
const header = headerLine({ version: 0, id: 's1', createdAt: 1 })

function setup(text: string) {
  const root = tempRoot()
  mkdirSync(root, { recursive: true })
  const path = join(root, 's1.jsonl')
  writeFileSync(path, text)
  return { root, path }
}

describe('commitRepair', () => {
  it('re-reads when the file changed between the scan and the truncation', async () => {
    const { root, path } = setup(header + lines.slice(0, 3).join('') + '{"torn')
    let stats = 0
    // Another writer completes the torn line right after the first scan (before the revision check).
    const racing: FsLayer = {
      ...nodeFs,
      async stat(p) {
        if (++stats === 3) {
          writeFileSync(p, header + lines.slice(0, 4).join(''))
        }
        return nodeFs.stat(p)
      },
    }
    const { view } = await commitRepair(
      racing,
      root,
      new LogReader(racing, root, new Set()),
      's1',
      path,
      () => undefined,
    )
    expect(view.events.slice(0, 4)).toEqual(log.slice(0, 4))
    expect(readFileSync(path, 'utf8')).toBe(header + view.events.map(eventLine).join(''))
  })

  it('leaves a balanced log untouched', async () => {
    const text = header + lines.join('')
    const { root, path } = setup(text)
    const calls: string[] = []
    const watching: FsLayer = { ...nodeFs, open: (p, flags, mode) => (calls.push(flags), nodeFs.open(p, flags, mode)) }
    const { view } = await commitRepair(
      watching,
      root,
      new LogReader(watching, root, new Set()),
      's1',
      path,
      () => undefined,
    )
    expect(view.events).toEqual(log)
    expect(calls).toEqual([])
    expect(readFileSync(path, 'utf8')).toBe(text)
  })
})
