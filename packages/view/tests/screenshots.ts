import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const PACKAGE = fileURLToPath(new URL('..', import.meta.url))

/** The README's screenshots, and the record of the viewer source they were taken from. */
export const SCREENSHOTS = join(PACKAGE, 'docs', 'screenshots')
export const SOURCE_RECORD = join(SCREENSHOTS, 'viewer-source.sha256')

/** Every file that decides what the screenshots show: the viewer's source and the app that writes the sessions. */
function viewerFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
    )
  return [...walk(join(PACKAGE, 'src')), join(PACKAGE, 'tests', 'fixture.ts'), join(PACKAGE, 'tests', 'app.ts')]
    .map((file) => relative(PACKAGE, file).split('\\').join('/'))
    .sort()
}

/** SHA-256 over those files' paths and contents (line endings normalized, so a checkout's settings do not matter). */
export function viewerSourceDigest(): string {
  const hash = createHash('sha256')
  for (const file of viewerFiles()) {
    const text = readFileSync(join(PACKAGE, file), 'utf8').replace(/\r\n/g, '\n')
    hash.update(`${file}\0${text.length}\0${text}\0`)
  }
  return hash.digest('hex')
}
